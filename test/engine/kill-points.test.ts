// Whole processes killed at chosen moments: `audience run up` is killed with SIGKILL (engine, program and provider at
// once) again and again on one stack, each time at a seeded point of its creates, with creates slowed so some are in
// flight; every run starts from what the last one left. A final up must leave each resource once, each recorded, and
// nothing pending. The journal cuts (journal-cuts.test.ts) try every record boundary; this tries the real thing.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "pulumi-audience/emulator";
import { emulatorControl } from "./emulator-control.ts";
import { runProgram } from "../../provider/cli/program.ts";
import { BUILT_AUDIENCE, userEnv } from "../cli/helpers.ts";

const FIXTURE = join(import.meta.dirname, "fixtures", "chaos");
const PASSPHRASE = "kill points passphrase";
const PASSWORD = "kill-points-warehouse-password";
const FAMILIES = ["cohorts", "outcomes", "persona_sets", "scopes", "connections", "targets", "webhook_endpoints"];
/** After how many creates the service has received (in all runs so far) each run is killed. */
const KILL_AFTER = [2, 5, 9, 12, 16];

let emulator: RunningEmulator;
const work = mkdtempSync(join(tmpdir(), "kill-points-"));
beforeAll(async () => {
  emulator = await startEmulator({ builds: { default: "immediate" }, world: { size: 2000 } });
});
afterAll(async () => {
  await emulator?.close();
  rmSync(work, { recursive: true, force: true });
});

const { control, creates } = emulatorControl(() => emulator);


it(`up killed with SIGKILL after ${KILL_AFTER.join(", ")} creates, then run again, makes nothing twice`, { timeout: 600_000 }, async () => {
  const stateDir = join(work, "state");
  const env = { AUDIENCE_BASE_URL: `${emulator.url}/v1`, AUDIENCE_API_KEY: emulator.apiKey };
  await control("PUT", "/faults", { rules: [{ method: "POST", path: "/**", latency_ms: 300 }] });
  const killedAt: number[] = [];
  for (const target of KILL_AFTER) {
    const child = spawn(process.execPath, [
      BUILT_AUDIENCE, "run", "up", "--yes", "--cwd", FIXTURE, "--state-dir", stateDir, "-c", "groups=1", "--secret", `warehousePassword=${PASSWORD}`,
    ], { env: userEnv({ ...env, PULUMI_CONFIG_PASSPHRASE: PASSPHRASE }), stdio: "ignore", detached: true });
    const exited = new Promise((resolve) => child.once("exit", resolve));
    let finished = false;
    void exited.then(() => (finished = true));
    while (!finished && (await creates()) < target) await sleep(20);
    const killed = !finished;
    if (killed) process.kill(-child.pid!, "SIGKILL");
    await exited;
    killedAt.push(killed ? await creates() : -1);
  }
  await control("DELETE", "/faults");
  const last = await runProgram({ cwd: FIXTURE, operation: "up", passphrase: PASSPHRASE, stateDir, env, config: { groups: "1" }, secrets: { warehousePassword: PASSWORD } });
  expect(last.ok, last.error).toBe(true);

  const live: { id: string; key: string }[] = [];
  for (const family of FAMILIES) {
    const response = await fetch(`${emulator.url}/v1/${family}`, { headers: { authorization: `Bearer ${emulator.apiKey}` } });
    for (const r of (await response.json()) as { id: string; name?: string; url?: string }[]) {
      const key = `${family}:${r.name ?? r.url ?? ""}`;
      if (/Chaos |\/chaos\//.test(key)) live.push({ id: r.id, key });
    }
  }
  const state = JSON.parse(readFileSync(join(stateDir, "dev.json"), "utf8")) as { deployment: { resources: { id?: string }[]; pending_operations?: unknown[] } };
  const recorded = new Set(state.deployment.resources.map((r) => r.id));
  const keys = live.map((r) => r.key);
  const duplicates = keys.length - new Set(keys).size;
  const orphans = live.filter((r) => !recorded.has(r.id)).length;
  console.info(`kill points: killed after ${killedAt.join(", ")} creates sent (-1: the run finished first); then ${live.length} live, ${duplicates} duplicates, ${orphans} orphans`);
  expect(killedAt.filter((n) => n >= 0).length).toBeGreaterThanOrEqual(3);
  expect({ live: live.length, duplicates, orphans }).toEqual({ live: 20, duplicates: 0, orphans: 0 });
  expect(state.deployment.pending_operations).toBeUndefined();
});
