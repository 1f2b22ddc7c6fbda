// `audience drift` over a fleet against the baseline of one GET per resource (what `refresh` does), on one emulator
// in its own process, as the service runs apart from the machine that checks it (`--in-process` runs it in this
// process instead, where its work is added to both paths):
//   node --conditions=source bench/drift.ts [--in-process] [accounts] [resources per account]   (default 5 x 2000)
// Prints a table: requests and time of each path (the scan: median of a few whole runs), on loopback and with a
// network's latency added, and the budget of requests the scan must stay within.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Table from "cli-table3";
import { startEmulator } from "pulumi-audience/emulator";
import { startChild } from "./measure.ts";
import type { EmulatorReady } from "./service.ts";
import { clientService, createLifecycle, credentialsFor, type Service, type Settings } from "pulumi-audience/provider";
import { driftReport, type Report } from "../provider/cli/drift/index.ts";
import { pool } from "../provider/cli/drift/scan.ts";
import { ADOPTABLE } from "../provider/cli/adoptable.ts";
import { providerFamilies } from "../provider/runtime/families/index.ts";

type Props = Record<string, unknown>;

const inProcess = process.argv.includes("--in-process");
const [accountCount = 5, perAccount = 2000] = process.argv.slice(2).filter((a) => a !== "--in-process").map(Number).filter((n) => Number.isInteger(n) && n > 0);
/** Resource reads in flight per account for the baseline, as `audience run --parallel` defaults to. */
const BASELINE_PARALLEL = 8;
/** Whole scans per round; the median is compared with the baseline. */
const DRIFT_RUNS = 3;
/** Added to every request in the second round, as a service across a network would. */
const LATENCY_MS = 20;

/** The mix of one account: half cohorts, a quarter each connections (with a password) and webhook endpoints. */
function declared(i: number): { collection: string; props: Props } {
  if (i % 4 === 1) return { collection: "connections", props: { name: `Warehouse ${i}`, options: { type: "postgres", host: `db-${i}`, port: 5432, database: "d", schema: "s", user: "u", password: `pw-${i}` } } };
  if (i % 4 === 3) return { collection: "webhook_endpoints", props: { url: `https://hooks.example.com/${i}`, enabledEvents: ["resource.errored"] } };
  return { collection: "cohorts", props: { name: `Cohort ${i}`, minCount: i % 50 } };
}

const emulator = inProcess
  ? await startEmulator({ port: 0 })
  : await startChild<EmulatorReady>("service.ts", ["emulator", "0"]).then((child) => ({ url: child.ready.url, close: () => child.stop() }));
const control = async (method: string, path: string, body?: unknown, key?: string) => {
  const answer = await fetch(`${emulator.url}${path}`, { method, headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) });
  return answer.json() as Promise<unknown>;
};
const dir = await mkdtemp(join(tmpdir(), "audience-drift-bench-"));
try {
  const settings: Settings = { default: {}, accounts: {} };
  for (let a = 1; a <= accountCount; a++) {
    const made = (await control("POST", "/_emulator/accounts", { name: `brand-${a}`, quotas: { cohorts: perAccount, connections: perAccount, webhook_endpoints: perAccount } })) as { api_key: string };
    settings.accounts[`brand-${a}`] = { apiKey: made.api_key, baseUrl: emulator.url };
  }
  const names = Object.keys(settings.accounts);

  // Each account's stack, made through the provider's own check and create, exported with --show-secrets.
  const started = performance.now();
  const services = new Map<string, Service>();
  const service = (account: string | undefined) => {
    const key = account ?? "";
    if (!services.has(key)) services.set(key, clientService(credentialsFor(settings, account)));
    return services.get(key)!;
  };
  const lifecycle = createLifecycle({ settings: () => settings, service, sleep: () => Promise.resolve() });
  const stacks: { account: string; id: string; collection: string; outputs: Props }[][] = [];
  for (const account of names) {
    const made = await pool(Array.from({ length: perAccount }, (_, i) => i), 16, async (i) => {
      const { collection, props } = declared(i);
      const checked = await lifecycle.check({}, { ...props, account, __kind: collection });
      const created = await lifecycle.create(checked.inputs);
      const type = `pulumi-nodejs:dynamic/audience:${providerFamilies[collection]!.family.className}`;
      return { urn: `urn:pulumi:${account}::fleet::${type}::r${i}`, custom: true, type, id: created.id, inputs: checked.inputs, outputs: { ...created.outs } };
    });
    await writeFile(join(dir, `${account}.json`), JSON.stringify({ version: 3, deployment: { resources: made } }));
    stacks.push(made.map((r) => ({ account, id: r.id, collection: String(r.inputs.__kind), outputs: { ...r.outputs, ...r.inputs } })));
  }
  const setupMs = Math.round(performance.now() - started);

  /** Requests the emulator served since `since`, counted by the sequence number of a marker request. */
  const served = async (since: number) => {
    await control("GET", "/accounts/current", undefined, settings.accounts[names[0]!]!.apiKey);
    const log = (await control("GET", `/_emulator/requests?path=/accounts/current&since=${since}`)) as { seq: number }[];
    return { last: log.at(-1)!.seq, count: log.at(-1)!.seq - since - 1 };
  };
  const accounts = Object.fromEntries(names.map((n) => [n, settings.accounts[n] as { baseUrl: string; apiKey: string }]));
  const total = accountCount * perAccount;
  const table = new Table({ style: { head: [], border: [] }, head: ["network", "path", "accounts x resources", "requests", "requests / 100 resources", "ms", "x faster than baseline"] });
  const driftRuns: string[] = [];
  for (const latencyMs of [0, LATENCY_MS]) {
    await control("PUT", "/_emulator/faults", { rules: latencyMs ? [{ path: "/**", latency_ms: latencyMs }] : [] });
    let { last } = await served(0);
    // The baseline: the provider's read of each resource, one GET each, accounts in parallel as the scan.
    let t = performance.now();
    await pool(stacks, accountCount, (stack) => pool(stack, BASELINE_PARALLEL, async (r) => {
      const found = await lifecycle.read(r.id, r.outputs);
      if (!found.id) throw new Error(`${r.collection} ${r.id} not found`);
    }));
    const baselineMs = Math.round(performance.now() - t);
    const baseline = await served(last);
    last = baseline.last;
    if (latencyMs === 0) {
      // Today's tool before the scan: one GET per resource, one after another (not repeated with latency: minutes).
      t = performance.now();
      for (const r of stacks.flat()) await lifecycle.read(r.id, r.outputs);
      const sequentialMs = Math.round(performance.now() - t);
      const sequential = await served(last);
      last = sequential.last;
      table.push(["loopback", "one GET per resource, one after another", `${accountCount} x ${perAccount}`, sequential.count, (sequential.count / (total / 100)).toFixed(1), sequentialMs, (baselineMs / sequentialMs).toFixed(1)]);
    }
    // The scan, run whole (states read, every list fetched) a few times: its time is the median, beside the
    // baseline's single long run; each run's time is printed below the table.
    const runs: number[] = [];
    let drift = { last, count: 0 };
    for (let run = 0; run < DRIFT_RUNS; run++) {
      t = performance.now();
      const report: Report = await driftReport({ states: [join(dir, "*.json")], accounts, concurrency: accountCount, env: {} });
      runs.push(Math.round(performance.now() - t));
      const counted = await served(last);
      if (run > 0 && counted.count !== drift.count) throw new Error(`runs made ${drift.count} and ${counted.count} requests`);
      drift = counted;
      last = counted.last;
      if (report.summary.in_sync !== total) throw new Error(`expected every resource in sync: ${JSON.stringify(report.summary)}`);
    }
    const driftMs = [...runs].sort((a, b) => a - b)[Math.floor(runs.length / 2)]!;
    driftRuns.push(`${latencyMs ? `+${latencyMs} ms` : "loopback"}: ${runs.join(", ")}`);
    const network = latencyMs ? `loopback + ${latencyMs} ms per request` : "loopback";
    table.push(
      [network, `baseline: one GET per resource (${BASELINE_PARALLEL} at once per account)`, `${accountCount} x ${perAccount}`, baseline.count, (baseline.count / (total / 100)).toFixed(1), baselineMs, "1.0"],
      [network, `audience drift --concurrency ${accountCount} (median of ${DRIFT_RUNS} runs)`, `${accountCount} x ${perAccount}`, drift.count, (drift.count / (total / 100)).toFixed(2), driftMs, (baselineMs / driftMs).toFixed(1)],
    );
  }
  const families = new Set(stacks.flat().map((r) => r.collection));
  const perFamily = [...families].map((f) => Math.ceil(stacks[0]!.filter((r) => r.collection === f).length / 100));
  const budget = accountCount * (perFamily.reduce((a, b) => a + b, 0) + ADOPTABLE.length + 1);
  console.log(table.toString());
  console.log(`drift budget: ${budget} requests = per account (${perFamily.join(" + ")} id batches over ${families.size} families, ${ADOPTABLE.length} plain lists, 1 account check)`);
  console.log(`audience drift runs (ms): ${driftRuns.join("; ")}`);
  console.log(`setup (creating the fleet through the provider) took ${setupMs} ms; every resource reported in sync by each scan.`);
} finally {
  await rm(dir, { recursive: true, force: true });
  await emulator.close();
}
