// Whole processes killed at chosen moments: `audience run up` is killed with SIGKILL (engine, program and provider at
// once) again and again on one stack, each time at a seeded point of its creates, with creates slowed so some are in
// flight; every run starts from what the last one left. A final up must leave each resource once, each recorded, and
// nothing pending. The journal cuts (journal-cuts.test.ts) try every record boundary; this tries the real thing.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { expect, it } from "vitest";
import { agreement, CHAOS_PROGRAM as FIXTURE, chaosWorld, liveChaos, recordedIds, type ExportedResource } from "./chaos-world.ts";
import { runProgram } from "../../provider/cli/program.ts";
import { BUILT_AUDIENCE, userEnv } from "../cli/helpers.ts";

const PASSPHRASE = "kill points passphrase";
const PASSWORD = "kill-points-warehouse-password";
/** After how many creates the service has received (in all runs so far) each run is killed. */
const KILL_AFTER = [2, 5, 9, 12, 16];

const { emulator: running, work, control, creates } = chaosWorld("kill-points");


it(`up killed with SIGKILL after ${KILL_AFTER.join(", ")} creates, then run again, makes nothing twice`, { timeout: 600_000 }, async () => {
  const stateDir = join(work, "state");
  const emulator = running();
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

  const state = JSON.parse(readFileSync(join(stateDir, "dev.json"), "utf8")) as { deployment: { resources: ExportedResource[]; pending_operations?: unknown[] } };
  const { live, duplicates, orphans, notLive } = agreement(await liveChaos(emulator, emulator.apiKey), recordedIds(state.deployment.resources));
  console.info(`kill points: killed after ${killedAt.join(", ")} creates sent (-1: the run finished first); then ${live} live, ${duplicates} duplicates, ${orphans} orphans`);
  expect(killedAt.filter((n) => n >= 0).length).toBeGreaterThanOrEqual(3);
  expect({ live, duplicates, orphans, notLive }).toEqual({ live: 20, duplicates: 0, orphans: 0, notLive: 0 });
  expect(state.deployment.pending_operations).toBeUndefined();
});
