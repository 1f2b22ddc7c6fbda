// `audience drift` over a fleet, run as users run it (`bin/audience.js drift`, a whole process), against the
// baselines of the same run: one provider read per resource (what `refresh` does), the wire's floor (the same lists
// downloaded and parsed with undici in a process of their own, bench/drift-floor.ts), that floor reading and
// parsing the states too (what any scan of them must do), and the least scan that reports each resource (the same
// process keeping the states, comparing each listed document by plain deep equality, printing the report). The
// emulator runs in its own process, as the service runs apart from the machine that checks it (`--in-process` runs
// it in this process):
//   node --conditions=source bench/drift.ts [--in-process] [--rows <file>] [accounts] [resources per account]
//   (default 10 x 5000)
// Prints a table: requests and time of each path (the scan and the floors: median of a few whole runs, alternated),
// on loopback and with a network's latency added, the scan's peak RSS, and the budget of requests; `--rows` also
// writes the goals' rows (bench/measure.ts's Row) to a file, for `npm run bench`'s table.
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import Table from "cli-table3";
import { emulatorControl, startEmulator } from "pulumi-audience/emulator";
import { atLeast, baselineScript, ensureBuilt, median, NETWORK_LATENCY_MS, pairedAtMost, ROOT, startChild, type Row } from "./measure.ts";
import type { EmulatorReady } from "./service.ts";
import { clientService, createLifecycle, credentialsFor, type Service, type Settings } from "pulumi-audience/provider";
import type { Report } from "../provider/cli/drift/index.ts";
import { pool } from "../provider/cli/drift/scan.ts";
import { defaultParallel } from "../provider/engine/index.ts";
import { ADOPTABLE } from "../provider/cli/adoptable.ts";
import { providerFamilies } from "../provider/runtime/families/index.ts";
import { markSecret, plaintextSecrets, type PropertyMap } from "../provider/protocol/values.ts";

type Props = Record<string, unknown>;

ensureBuilt();
const { values: flags, positionals } = parseArgs({ options: { "in-process": { type: "boolean", default: false }, rows: { type: "string" } }, allowPositionals: true });
const inProcess = flags["in-process"];
const [accountCount = 10, perAccount = 5000] = positionals.map(Number).filter((n) => Number.isInteger(n) && n > 0);
/** Resource reads in flight per account for the baseline, as many as `audience run` has without `--parallel`. */
const BASELINE_PARALLEL = defaultParallel();
/** Whole scans (and floors) per round, alternated; the medians are compared. */
const DRIFT_RUNS = 5;

/** The mix of one account: half cohorts, a quarter each connections (with a password) and webhook endpoints. */
function declared(i: number): { collection: string; props: Props } {
  if (i % 4 === 1) return { collection: "connections", props: { name: `Warehouse ${i}`, options: { type: "postgres", host: `db-${i}`, port: 5432, database: "d", schema: "s", user: "u", password: `pw-${i}` } } };
  if (i % 4 === 3) return { collection: "webhook_endpoints", props: { url: `https://hooks.example.com/${i}`, enabledEvents: ["resource.errored"] } };
  return { collection: "cohorts", props: { name: `Cohort ${i}`, minCount: i % 50 } };
}

/** Values as `pulumi stack export --show-secrets` writes them: each member the provider keeps secret (a connection's
 * password) wrapped with its plaintext. */
const showSecrets = (collection: string) => (values: Props): Props =>
  plaintextSecrets(markSecret(values as PropertyMap, providerFamilies[collection]!.secretOutputs)) as Props;

const child = inProcess ? undefined : await startChild<EmulatorReady>("service.ts", ["emulator", "0"]);
const emulator = child ? { url: child.ready.url, close: () => child.stop() } : await startEmulator({ port: 0 });
const plane = emulatorControl(emulator.url);
const dir = await mkdtemp(join(tmpdir(), "audience-drift-bench-"));
await mkdir(join(dir, "stacks"));
/** Runs a command to its end; its output, or its failure with what it printed. */
const run = (command: string, args: string[]) => new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
  execFile(command, args, { maxBuffer: 1 << 30, env: { ...process.env, NO_COLOR: "1" } }, (error, stdout, stderr) => (error ? reject(new Error(`${args.slice(0, 3).join(" ")}: ${error.message}\n${stderr}`)) : resolve({ stdout, stderr })));
});
try {
  const settings: Settings = { default: {}, accounts: {} };
  /** Account id -> its name and key. */
  const keyOfAccount = new Map<string, { account: string; apiKey: string }>();
  for (let a = 1; a <= accountCount; a++) {
    const made = await plane.createAccount({ name: `brand-${a}`, quotas: { cohorts: perAccount, connections: perAccount, webhook_endpoints: perAccount } });
    settings.accounts[`brand-${a}`] = { apiKey: made.api_key, baseUrl: emulator.url };
    keyOfAccount.set(made.id, { account: `brand-${a}`, apiKey: made.api_key });
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
  await pool(names, names.length, async (account) => {
    const made = await pool(Array.from({ length: perAccount }, (_, i) => i), 16, async (i) => {
      const { collection, props } = declared(i);
      const checked = await lifecycle.check({}, { ...props, account, __kind: collection });
      const created = await lifecycle.create(checked.inputs);
      return { i, collection, id: created.id, inputs: checked.inputs, outputs: { ...created.outs } };
    });
    const exported = made.map(({ i, collection, id, inputs, outputs }) => {
      const type = `pulumi-nodejs:dynamic/audience:${providerFamilies[collection]!.family.className}`;
      const shown = showSecrets(collection);
      return { urn: `urn:pulumi:${account}::fleet::${type}::r${i}`, custom: true, type, id, inputs: shown(inputs), outputs: shown(outputs) };
    });
    await writeFile(join(dir, "stacks", `${account}.json`), JSON.stringify({ version: 3, deployment: { resources: exported } }));
    stacks.push(made.map((r) => ({ account, id: r.id, collection: r.collection, outputs: { ...r.outputs, ...r.inputs } })));
  });
  const setupMs = Math.round(performance.now() - started);

  /** Requests the emulator served since `since`, counted by the sequence number of a marker request. */
  const served = async (since: number) => {
    const marker = await fetch(`${emulator.url}/v1/accounts/current`, { headers: { authorization: `Bearer ${settings.accounts[names[0]!]!.apiKey}` } });
    await marker.arrayBuffer();
    const log = await plane.requests(`?path=/accounts/current&since=${since}`);
    return { last: log.at(-1)!.seq, count: log.at(-1)!.seq - since - 1 };
  };
  const accountsFile = join(dir, "accounts.json");
  await writeFile(accountsFile, JSON.stringify(Object.fromEntries(names.map((n) => [n, settings.accounts[n]]))));
  const total = accountCount * perAccount;

  /** A whole process to its end under /usr/bin/time: its wall time, CPU (user and system) and peak RSS, and the
   * service's CPU meanwhile (what each path leaves the service to do, and whether its own CPU bounds it). */
  const timed = async (args: string[]) => {
    const serviceBefore = child?.cpuMs();
    const t = performance.now();
    const { stdout, stderr } = await run("/usr/bin/time", ["-f", "%M %U %S", process.execPath, ...args]);
    const ms = performance.now() - t;
    const [peakKb, user, system] = stderr.trim().split("\n").at(-1)!.split(" ").map(Number) as [number, number, number];
    const serviceMs = serviceBefore === undefined ? undefined : child!.cpuMs() - serviceBefore;
    return { stdout, ms, peakMb: Math.round(peakKb / 1024), cpuMs: Math.round((user + system) * 1000), serviceMs };
  };
  /** `audience drift` as a user runs it: bin/audience.js, a whole process. */
  const scan = async () => {
    const { stdout, ...measured } = await timed([join(ROOT, "bin", "audience.js"), "drift", "--state", join(dir, "stacks", "*.json"), "--accounts", accountsFile, "--concurrency", String(accountCount), "--format", "json", "--fail-on", "drifted,missing,error,unknown"]);
    const report = JSON.parse(stdout) as Report;
    if (report.summary.in_sync !== total) throw new Error(`expected every resource in sync: ${JSON.stringify(report.summary)}`);
    return measured;
  };
  // The floor runs as the scan runs: JavaScript, its compiled code cached (measure.ts).
  const floorScript = await baselineScript(join(import.meta.dirname, "drift-floor.ts"));
  /** The wire's floor: the lists the scan fetched, downloaded and parsed with undici by a process of its own. */
  const floor = (planFile: string) => timed([floorScript, planFile]);
  /** The scan's own floor: the same, and the states read and parsed meanwhile, as any scan of them must. */
  const stateFiles = names.map((account) => join(dir, "stacks", `${account}.json`));
  const floorWithStates = (planFile: string) => timed([floorScript, planFile, ...stateFiles]);
  /** The least scan that reports each resource: that floor keeping the states, comparing each listed document by
   * plain deep equality and printing the report; it must find every resource in sync, as the scan does. */
  const leastScan = async (planFile: string) => {
    const { stdout, ...measured } = await timed([floorScript, planFile, "--report", ...stateFiles]);
    const { summary } = JSON.parse(stdout) as { summary: { in_sync: number } };
    if (summary.in_sync !== total) throw new Error(`the least scan found ${summary.in_sync} of ${total} in sync`);
    return measured;
  };

  const table = new Table({ style: { head: [], border: [] }, head: ["network", "path", "accounts x resources", "requests", "requests / 100 resources", "ms", "x the scan's time", "CPU ms"] });
  const notes: string[] = [];
  const rows: Row[] = [];
  for (const latencyMs of [0, NETWORK_LATENCY_MS]) {
    await plane.setFaults(latencyMs ? [{ path: "/**", latency_ms: latencyMs }] : []);
    let { last } = await served(0);
    // One scan first: its requests are the floor's plan, and the count every later scan must repeat.
    await scan();
    const logged = await plane.requests(`?since=${last}`);
    const requests = logged.filter((r) => r.account_id !== null);
    const plan = [...keyOfAccount].map(([id, { account, apiKey }]) => ({
      account, baseUrl: `${emulator.url}/v1`, apiKey, paths: requests.filter((r) => r.account_id === id).map((r) => `${r.path}${r.query ? `?${r.query}` : ""}`),
    }));
    const planFile = join(dir, `plan-${latencyMs}.json`);
    await writeFile(planFile, JSON.stringify(plan));
    ({ last } = await served(logged.at(-1)?.seq ?? last));
    // Scan and floors alternated, so a change in the machine's load falls on each.
    const scans: Awaited<ReturnType<typeof scan>>[] = [];
    const floors: Awaited<ReturnType<typeof floor>>[] = [];
    const stateFloors: Awaited<ReturnType<typeof floor>>[] = [];
    const leastScans: Awaited<ReturnType<typeof leastScan>>[] = [];
    for (let i = 0; i < DRIFT_RUNS; i++) {
      scans.push(await scan());
      floors.push(await floor(planFile));
      stateFloors.push(await floorWithStates(planFile));
      leastScans.push(await leastScan(planFile));
    }
    const scanMs = median(scans.map((s) => s.ms));
    const floorMs = median(floors.map((f) => f.ms));
    const stateFloorMs = median(stateFloors.map((f) => f.ms));
    const leastMs = median(leastScans.map((f) => f.ms));
    // The baseline of one read per resource: the provider's read of each, 8 at once per account, accounts in parallel.
    ({ last } = await served(last));
    const t = performance.now();
    const cpu = process.cpuUsage();
    const serviceCpu = child?.cpuMs();
    await pool(stacks, accountCount, (stack) => pool(stack, BASELINE_PARALLEL, async (r) => {
      const found = await lifecycle.read(r.id, r.outputs);
      if (!found.id) throw new Error(`${r.collection} ${r.id} not found`);
    }));
    const readsMs = performance.now() - t;
    // What bounds the baseline: the requests' latency at its parallelism, the reads' own CPU, or the service's.
    const { user, system } = process.cpuUsage(cpu);
    const latencyBoundMs = Math.ceil(perAccount / BASELINE_PARALLEL) * latencyMs;
    const serviceMs = serviceCpu === undefined ? "in this process" : `${Math.round(child!.cpuMs() - serviceCpu)} ms`;
    const reads = await served(last);
    const network = latencyMs ? `loopback + ${latencyMs} ms per request` : "loopback";
    const size = `${accountCount} x ${perAccount}`;
    const perHundred = (n: number) => (n / (total / 100)).toFixed(2);
    // CPU beside each time: a scan bound by its CPU against reads bound by the latency says why a loaded run differs.
    const cpuMs = (runs: { cpuMs: number }[]) => Math.round(median(runs.map((r) => r.cpuMs)));
    table.push(
      [network, `audience drift --concurrency ${accountCount} (bin/audience.js, whole process, median of ${DRIFT_RUNS})`, size, requests.length, perHundred(requests.length), Math.round(scanMs), "1.0", cpuMs(scans)],
      [network, `wire floor: the same ${requests.length} lists with undici, parsed (whole process, median of ${DRIFT_RUNS})`, size, requests.length, perHundred(requests.length), Math.round(floorMs), (floorMs / scanMs).toFixed(2), cpuMs(floors)],
      [network, `the wire floor reading and parsing the ${stateFiles.length} states too (whole process, median of ${DRIFT_RUNS})`, size, requests.length, perHundred(requests.length), Math.round(stateFloorMs), (stateFloorMs / scanMs).toFixed(2), cpuMs(stateFloors)],
      [network, `the least scan: that floor keeping the states, comparing each listed document by plain deep equality, printing the report (whole process, median of ${DRIFT_RUNS})`, size, requests.length, perHundred(requests.length), Math.round(leastMs), (leastMs / scanMs).toFixed(2), cpuMs(leastScans)],
      [network, `one provider read per resource (${BASELINE_PARALLEL} at once per account, in the bench's process)`, size, reads.count, perHundred(reads.count), Math.round(readsMs), (readsMs / scanMs).toFixed(1), Math.round((user + system) / 1000)],
    );
    // Each run's scan against the floor with the states taken right after it: the load of that run on both sides.
    const ownRatios = (pick: (run: { ms: number; cpuMs: number }) => number) => scans.map((s, i) => pick(s) / pick(stateFloors[i]!));
    const paired = (pick: (run: { ms: number; cpuMs: number }) => number) => `${median(ownRatios(pick)).toFixed(2)}x (${ownRatios(pick).map((r) => r.toFixed(2)).join(", ")})`;
    notes.push(`${network}: scan ${(scanMs / stateFloorMs).toFixed(2)}x the floor with the states (goal <= 2x) and ${(median(scans.map((r) => r.cpuMs)) / median(stateFloors.map((r) => r.cpuMs))).toFixed(2)}x its CPU (goal <= 2x); as the median of the runs' own ratios, ${paired((r) => r.ms)} in time and ${paired((r) => r.cpuMs)} in CPU; ${(scanMs / floorMs).toFixed(2)}x the wire floor alone, ${(readsMs / scanMs).toFixed(1)}x faster than one read per resource; scan runs ${scans.map((s) => Math.round(s.ms)).join(", ")} ms, floor runs ${floors.map((f) => Math.round(f.ms)).join(", ")} ms, with the states ${stateFloors.map((f) => Math.round(f.ms)).join(", ")} ms; scan peak RSS ${scans.map((s) => s.peakMb).join(", ")} MB, floor's ${floors.map((f) => f.peakMb).join(", ")} MB, with the states ${stateFloors.map((f) => f.peakMb).join(", ")} MB`);
    const cpuOf = (runs: { cpuMs: number; serviceMs: number | undefined }[]) => `${median(runs.map((r) => r.cpuMs))} ms${child ? ` (the service's meanwhile: ${median(runs.map((r) => r.serviceMs!))} ms)` : ""}`;
    notes.push(`${network}: CPU (user + system, median) of the scan's process ${cpuOf(scans)}, of the floor's ${cpuOf(floors)}, with the states ${cpuOf(stateFloors)}, of the least scan reporting each resource ${cpuOf(leastScans)}`);
    notes.push(`${network}: the least scan reporting each resource is ${(leastMs / stateFloorMs).toFixed(2)}x the floor with the states in time and ${(cpuMs(leastScans) / cpuMs(stateFloors)).toFixed(2)}x in CPU; the scan is ${(scanMs / leastMs).toFixed(2)}x and ${(cpuMs(scans) / cpuMs(leastScans)).toFixed(2)}x the least scan (runs ${leastScans.map((m) => Math.round(m.ms)).join(", ")} ms, peak RSS ${leastScans.map((m) => m.peakMb).join(", ")} MB)`);
    notes.push(`${network}: the reads took ${Math.round(readsMs)} ms: latency alone bounds them at ${latencyBoundMs} ms; their CPU ${Math.round((user + system) / 1000)} ms, the service's ${serviceMs}`);
    const what = `audience drift --concurrency ${accountCount}, ${size} (bin/audience.js, whole process, ${DRIFT_RUNS} runs), ${network}`;
    const stateFloorWhat = `the wire floor reading and parsing the ${stateFiles.length} states too (bench/drift-floor.ts, whole process)`;
    rows.push(
      pairedAtMost({ what, measured: "time", unit: "ms", baselineWhat: stateFloorWhat }, scans.map((s, i) => ({ value: s.ms, baseline: stateFloors[i]!.ms })), 2),
      pairedAtMost({ what, measured: "CPU", unit: "ms", baselineWhat: stateFloorWhat }, scans.map((s, i) => ({ value: s.cpuMs, baseline: stateFloors[i]!.cpuMs })), 2),
    );
    // At +20 ms the reads wait on the latency and the scan on its CPU: the goal holds on a quiet machine.
    const readsRow = {
      what, measured: `one provider read per resource (${BASELINE_PARALLEL} at once per account), its time against the scan's`, unit: "ms", value: readsMs, baseline: scanMs,
      baselineWhat: `the scan (median of ${DRIFT_RUNS})`, note: `the reads' CPU ${Math.round((user + system) / 1000)} ms, the scan's ${cpuMs(scans)} ms`,
    };
    rows.push(latencyMs ? atLeast(readsRow, 10) : { ...readsRow, ratio: readsMs / scanMs, goal: "report" });
  }
  const families = new Set(stacks.flat().map((r) => r.collection));
  if ([...families].some((f) => !ADOPTABLE.includes(providerFamilies[f]!))) throw new Error("the fleet holds a family that is not listed whole: its budget has id batches");
  const budget = accountCount * (ADOPTABLE.length + 1);
  console.log(table.toString());
  console.log(`drift budget: ${budget} requests = per account (${ADOPTABLE.length} plain lists, which answer the managed documents of ${families.size} families, 1 account check)`);
  for (const note of notes) console.log(note);
  console.log(`setup (creating the fleet through the provider) took ${setupMs} ms; every resource reported in sync by each scan.`);
  if (flags.rows) await writeFile(flags.rows, JSON.stringify(rows));
} finally {
  await rm(dir, { recursive: true, force: true });
  await emulator.close();
}
