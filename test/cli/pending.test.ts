// `audience pending`, the one documented step after an `up` killed midway (docs/interrupted-runs.md): an `audience
// run up` is SIGKILLed at many moments, in the engine's fast mode (its own pending records, with start times) and in
// its CLI-faithful mode (Pulumi's pending operations, read from a `pulumi stack export` document); after the step
// and another up the account holds each resource once and every one is in the state. Another stack's resources in
// the same account, one with the same name and configuration made before the run and one with the same name but
// another configuration, are never taken.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "pulumi-audience/emulator";
import { emulatorUnderTest } from "../engine/emulator-control.ts";
import { runProgram } from "../../provider/cli/program.ts";
import { installedProgram, removeInstalledPrograms } from "../engine/installed.ts";
import { audiencePending } from "../engine/pending-step.ts";
import { childrenOf, gone } from "../engine/processes.ts";
import { BUILT_AUDIENCE, userEnv } from "./helpers.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const FIXTURE = join(ROOT, "test", "engine", "fixtures", "chaos");
const PASSPHRASE = "pending passphrase";
const PASSWORD = "pending-warehouse-password";
const RESOURCES = 20; // one group of the chaos program
const FAMILIES = ["cohorts", "outcomes", "persona_sets", "scopes", "connections", "targets", "webhook_endpoints"];

let emulator: RunningEmulator;
const work = mkdtempSync(join(tmpdir(), "pending-"));
beforeAll(async () => {
  emulator = await startEmulator({ builds: { default: "immediate" }, world: { size: 2000 } });
});
afterAll(async () => {
  await emulator?.close();
  rmSync(work, { recursive: true, force: true });
  removeInstalledPrograms();
});

const { control, landed } = emulatorUnderTest(() => emulator);

async function api(apiKey: string, method: string, path: string, body?: unknown): Promise<{ id: string }> {
  const response = await fetch(`${emulator.url}/v1${path}`, {
    method, headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(response.status).toBeLessThan(300);
  return (await response.json()) as { id: string };
}

/** The program's resources in the account: id and the name (or url) that says which it is. */
async function live(apiKey: string): Promise<{ id: string; key: string }[]> {
  const found: { id: string; key: string }[] = [];
  for (const family of FAMILIES) {
    const list = (await (await fetch(`${emulator.url}/v1/${family}`, { headers: { authorization: `Bearer ${apiKey}` } })).json()) as { id: string; name?: string; url?: string }[];
    for (const r of list) {
      const key = `${family}:${r.name ?? r.url ?? ""}`;
      if (/Chaos |\/chaos\//.test(key)) found.push({ id: r.id, key });
    }
  }
  return found;
}

function stateIds(stateDir: string): string[] {
  const state = JSON.parse(readFileSync(join(stateDir, "dev.json"), "utf8")) as { deployment: { resources: { id?: string }[] } };
  return state.deployment.resources.flatMap((r) => (r.id ? [r.id] : []));
}

interface Moment {
  /** Creates the service has received when the run is killed. */
  after: number;
  faithful: boolean;
}

interface Outcome {
  pending: number;
  imported: number;
  cleared: number;
  duplicates: number;
  orphans: number;
  missing: number;
  othersTaken: number;
  /** What the account holds that the state does not. */
  orphanKeys: string[];
}

const outcomes: (Moment & Outcome)[] = [];
afterAll(() => {
  for (const o of outcomes) {
    console.info(`pending: ${o.faithful ? "faithful" : "fast"} mode, killed after ${o.after} creates: ${o.pending} pending creates (${o.imported} imported, ${o.cleared} cleared); `
      + `after the step and up: ${o.duplicates} duplicates, ${o.orphans} orphans${o.orphans ? ` (${o.orphanKeys.join(", ")})` : ""}, ${o.missing} missing, ${o.othersTaken} of another stack's taken`);
  }
});

interface Account {
  apiKey: string;
  /** Another stack's resources in it. */
  others: string[];
  /** When they were made (this process's clock). */
  made: number;
}

/** An account for a moment, with another stack's resources: (a) same name and configuration, (b) same name, another configuration. */
async function accountWithOthers({ after, faithful }: Moment): Promise<Account> {
  const { api_key: apiKey } = (await control("POST", "/accounts", { name: `pending-${faithful}-${after}` })) as { api_key: string };
  const others = [
    (await api(apiKey, "POST", "/cohorts", { name: "Chaos cohort 0.0", stream_name: "transactions", min_count: 1 })).id,
    (await api(apiKey, "POST", "/cohorts", { name: "Chaos cohort 0.1", stream_name: "transactions", min_count: 99 })).id,
  ];
  return { apiKey, others, made: Date.now() };
}

/** Kills an `audience run up` once the service has received `after` creates, resolves its pending creates, runs up again. */
async function killedThenResolved({ after, faithful }: Moment, program: string, { apiKey, others, made }: Account): Promise<Outcome> {
  const env = { AUDIENCE_BASE_URL: `${emulator.url}/v1`, AUDIENCE_API_KEY: apiKey, PULUMI_CONFIG_PASSPHRASE: PASSPHRASE, ...(faithful ? { NODE_OPTIONS: "" } : {}) };
  // The other stack's resources are older than the allowance for the service's clock (5 s): made before the run, as
  // far as any window can tell. Every account is made before the first run, so the runs after it need not wait.
  await sleep(Math.max(0, made + 6_000 - Date.now()));
  const stateDir = join(work, `${faithful ? "faithful" : "fast"}-${after}`);
  await control("DELETE", "/requests");
  await control("PUT", "/faults", { rules: [{ method: "POST", path: "/**", latency_ms: 300 }] });
  const began = Date.now();
  const child = spawn(process.execPath, [
    BUILT_AUDIENCE, "run", "up", "--yes", "--cwd", program, "--state-dir", stateDir, "-c", "groups=1", "--secret", `warehousePassword=${PASSWORD}`, ...(faithful ? ["--faithful"] : []),
  ], { env: userEnv(env), stdio: "ignore" });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const posts = async () => ((await control("GET", "/requests?method=POST")) as unknown[]).length;
  for (let waited = 0; (await posts()) < after; waited += 50) {
    if (waited > 120_000) throw new Error("the run never created enough");
    await sleep(50);
  }
  const started = childrenOf(child.pid!);
  child.kill("SIGKILL");
  await exited;
  // The processes it started (tethered to it) are gone, and what they had in flight has landed.
  expect(await gone(started)).toEqual([]);
  await landed();
  await control("DELETE", "/faults");

  const args = ["--cwd", program, "--state-dir", stateDir, "--json"];
  let resolutions: { urn: string; action: string; id?: string }[];
  if (faithful) {
    // As a Pulumi CLI user: the stack's export (Pulumi's pending operations carry no start time), then the command.
    const exported = join(stateDir, "export.json");
    const exportRun = spawn(process.execPath, [BUILT_AUDIENCE, "stack", "export", "--cwd", program, "--state-dir", stateDir, "--file", exported], { env: userEnv(env), stdio: "ignore" });
    expect(await new Promise((resolve) => exportRun.once("exit", resolve))).toBe(0);
    const document = JSON.parse(readFileSync(exported, "utf8")) as { deployment: { pending_operations?: { startedAt?: number }[] } };
    expect(document.deployment.pending_operations?.some((op) => op.startedAt !== undefined) ?? false).toBe(false);
    const withoutSince = await audiencePending(["--file", exported], env);
    // Without --since a pending create is bad input (exit 1: 2 would say a create is left to decide).
    const refused = withoutSince.code === 1 && withoutSince.stderr.includes("give --since, the time the interrupted run began");
    expect(refused || (withoutSince.code === 0 && !document.deployment.pending_operations), withoutSince.stderr).toBe(true);
    const resolvedFile = join(stateDir, "resolved.json");
    const printed = await audiencePending(["--file", exported, "--out", resolvedFile, "--since", new Date(began).toISOString(), "--json"], env);
    expect(printed.code, printed.stderr + printed.stdout).toBe(0);
    const answer = JSON.parse(printed.stdout) as { pending: { urn: string; action: string; id?: string }[]; command?: string };
    resolutions = answer.pending;
    if (resolutions.some((r) => r.action === "import" || r.action === "clear")) {
      expect(answer.command).toBe(`pulumi stack import --stack dev --file ${resolvedFile}`);
      // The document it imports records what each pending create made, and holds no pending create resolved.
      const resolved = JSON.parse(readFileSync(resolvedFile, "utf8")) as {
        deployment: { manifest: { magic: string; version: string }; resources: { urn: string; id?: string }[]; pending_operations?: { resource: { urn: string } }[] };
      };
      // The cookie `pulumi stack import` checks: without it the import is refused as tampered with.
      expect(resolved.deployment.manifest.magic).toBe(createHash("sha256").update(resolved.deployment.manifest.version).digest("hex"));
      for (const r of resolutions.filter((p) => p.action === "import")) expect(resolved.deployment.resources.find((x) => x.urn === r.urn)?.id).toBe(r.id);
      const left = (resolved.deployment.pending_operations ?? []).map((op) => op.resource.urn);
      expect(left.filter((urn) => resolutions.some((r) => r.urn === urn && r.action !== "ambiguous" && r.action !== "unknown"))).toEqual([]);
    }
    // The same resolutions, made in this engine's copy of the state.
    const applied = await audiencePending([...args, "--apply", "--since", new Date(began).toISOString()], env);
    expect(applied.code, applied.stderr).toBe(0);
    expect((JSON.parse(applied.stdout) as { pending: unknown[] }).pending).toEqual(resolutions);
  } else {
    const applied = await audiencePending([...args, "--apply"], env);
    expect(applied.code, applied.stderr).toBe(0);
    resolutions = (JSON.parse(applied.stdout) as { pending: { urn: string; action: string; id?: string }[] }).pending;
  }
  const state = JSON.parse(readFileSync(join(stateDir, "dev.json"), "utf8")) as { deployment: { pending_operations?: { type: string }[] } };
  expect(state.deployment.pending_operations?.filter((op) => op.type === "creating") ?? []).toEqual([]);

  const again = await runProgram({
    cwd: program, operation: "up", passphrase: PASSPHRASE, stateDir, faithful, env,
    config: { groups: "1" }, secrets: { warehousePassword: PASSWORD },
  });
  expect(again.ok, again.error).toBe(true);
  const ours = (await live(apiKey)).filter((r) => !others.includes(r.id));
  const recorded = stateIds(stateDir);
  const keys = ours.map((r) => r.key);
  const stillThere = (await live(apiKey)).filter((r) => others.includes(r.id)).length;
  expect(stillThere).toBe(others.length);
  return {
    pending: resolutions.length,
    imported: resolutions.filter((r) => r.action === "import").length,
    cleared: resolutions.filter((r) => r.action === "clear").length,
    duplicates: keys.length - new Set(keys).size,
    orphans: ours.filter((r) => !recorded.includes(r.id)).length,
    missing: RESOURCES - new Set(keys).size,
    othersTaken: others.filter((id) => recorded.includes(id)).length,
    orphanKeys: ours.filter((r) => !recorded.includes(r.id)).map((r) => r.key),
  };
}

const FAST_MOMENTS = [1, 4, 9, 14];
const FAITHFUL_MOMENTS = [2, 7, 12];

const MOMENTS: Moment[] = [...FAST_MOMENTS.map((after) => ({ after, faithful: false })), ...FAITHFUL_MOMENTS.map((after) => ({ after, faithful: true }))];
const accounts = new Map<string, Account>();
const accountOf = (moment: Moment) => accounts.get(`${moment.faithful}-${moment.after}`)!;
beforeAll(async () => {
  for (const moment of MOMENTS) accounts.set(`${moment.faithful}-${moment.after}`, await accountWithOthers(moment));
});

describe("an up SIGKILLed midway, then `audience pending` and up", { timeout: 900_000 }, () => {
  it.each(FAST_MOMENTS)("fast mode (the engine's own pending records), killed after %i creates: each resource once, all in the state, nothing of another stack taken", async (after) => {
    const outcome = await killedThenResolved({ after, faithful: false }, FIXTURE, accountOf({ after, faithful: false }));
    outcomes.push({ after, faithful: false, ...outcome });
    expect(outcome).toMatchObject({ duplicates: 0, orphans: 0, missing: 0, othersTaken: 0 });
  });

  it.each(FAITHFUL_MOMENTS)("CLI-faithful mode (Pulumi's pending operations, from an export), killed after %i creates: the same", async (after) => {
    const program = await installedProgram(FIXTURE, "pending");
    const outcome = await killedThenResolved({ after, faithful: true }, program, accountOf({ after, faithful: true }));
    outcomes.push({ after, faithful: true, ...outcome });
    expect(outcome).toMatchObject({ duplicates: 0, orphans: 0, missing: 0, othersTaken: 0 });
  });
});
