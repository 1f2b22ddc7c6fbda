// A lock file removed by hand while `audience run up` runs does not let a second run in: the second run finds the first
// one's claim in the journal (or loses the race to claim), and stops before sending anything, saying so, with a JSON
// document under --json. 20 rounds, the lock removed at different moments of the first run's creates (some as soon as
// it appears); after each, the account holds each resource once, each recorded. Whole processes, as users run them
// (a second run that loads the state only after the first ended finds nothing to do: an ordinary next run, counted apart).
import { spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { expect, it } from "vitest";
import { agreement, CHAOS_PROGRAM as FIXTURE, chaosWorld, liveChaos, recordedIds, type ExportedResource } from "./chaos-world.ts";
import { runProgram } from "../../provider/cli/program.ts";
import { BUILT_AUDIENCE, userEnv } from "../cli/helpers.ts";

const PASSPHRASE = "lock removal passphrase";
const PASSWORD = "lock-removal-warehouse-password";
const ROUNDS = Number(process.env["LOCK_ROUNDS"] ?? "20");

const { emulator: running, work, control, creates } = chaosWorld("lock-removal");

function up(stateDir: string, env: Record<string, string>) {
  const child = spawn(process.execPath, [
    BUILT_AUDIENCE, "run", "up", "--yes", "--json", "--cwd", FIXTURE, "--state-dir", stateDir, "-c", "groups=1", "--secret", `warehousePassword=${PASSWORD}`,
  ], { env: userEnv({ ...env, PULUMI_CONFIG_PASSPHRASE: PASSPHRASE }), stdio: ["ignore", "pipe", "pipe"], detached: true });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => child.once("exit", (code) => resolve({ code, stdout, stderr })));
  return { child, exited };
}

it(`a lock removed mid-run, ${ROUNDS} times: the second run stops before sending anything, never a double run`, { timeout: 900_000 }, async () => {
  const stateDir = join(work, "state");
  const lock = join(stateDir, "dev.json.lock");
  const emulator = running();
  const env = { AUDIENCE_BASE_URL: `${emulator.url}/v1`, AUDIENCE_API_KEY: emulator.apiKey };
  // A double run: the second run went through and changed something, as it does when it works from the state the
  // first run started from. One that read the first run's finished state changes nothing: an ordinary next run.
  const tally = { doubleRuns: 0, refused: 0, afterFirst: 0, firstFailed: 0, duplicates: 0, orphans: 0 };
  for (let round = 0; round < ROUNDS; round++) {
    await control("PUT", "/faults", { rules: [{ method: "POST", path: "/**", latency_ms: 400 }] });
    const base = await creates();
    const first = up(stateDir, env);
    let done = false;
    void first.exited.then(() => (done = true));
    // Every fifth round the lock goes as soon as it appears; the others after 1 to 12 creates of the first run.
    const after = round % 5 === 0 ? 0 : 1 + (round % 12);
    while (!done && !existsSync(lock)) await sleep(5);
    while (!done && (await creates()) - base < after) await sleep(10);
    expect(done, `round ${round}: the first run ended before its lock was removed`).toBe(false);
    rmSync(lock, { force: true });
    const second = await up(stateDir, env).exited;
    const firstResult = await first.exited;
    await control("DELETE", "/faults");

    if (second.code === 0) {
      const { changes } = JSON.parse(second.stdout) as { changes: Record<string, number> };
      if (Object.keys(changes).some((op) => op !== "same")) {
        tally.doubleRuns++;
        console.info(`round ${round}: the second run went through: ${JSON.stringify(changes)}`);
      } else tally.afterFirst++;
    } else {
      tally.refused++;
      expect(second.stderr, `round ${round}`).toMatch(/the stack is being changed by process \d+|claimed at the same moment|changed the stack while this run read it|kept changing while it was read/);
      const document = JSON.parse(second.stdout) as { ok: boolean; errorCode?: string; error: string };
      expect(document).toMatchObject({ ok: false, errorCode: "stack-busy" });
    }
    if (firstResult.code !== 0) tally.firstFailed++;
    if (round === 0) expect(statSync(stateDir).mode & 0o777).toBe(0o700);

    const state = JSON.parse(readFileSync(join(stateDir, "dev.json"), "utf8")) as { deployment: { resources: ExportedResource[] } };
    const { duplicates, orphans } = agreement(await liveChaos(emulator, emulator.apiKey), recordedIds(state.deployment.resources));
    tally.duplicates += duplicates;
    tally.orphans += orphans;
    // The next round starts from an empty account and stack.
    const destroyed = await runProgram({ cwd: FIXTURE, operation: "destroy", passphrase: PASSPHRASE, stateDir, env, config: { groups: "1" }, secrets: { warehousePassword: PASSWORD } });
    expect(destroyed.ok, destroyed.error).toBe(true);
  }
  console.info(`lock removals: ${ROUNDS} rounds; ${tally.doubleRuns} double runs, ${tally.refused} second runs refused with a message, ${tally.afterFirst} read the first one's finished state and changed nothing, `
    + `${tally.firstFailed} first runs failed; ${tally.duplicates} duplicates, ${tally.orphans} orphans`);
  expect(tally).toMatchObject({ doubleRuns: 0, firstFailed: 0, duplicates: 0, orphans: 0 });
  // Most second runs met the first one running: the refusal is what was tried, not a run that came too late.
  expect(tally.refused).toBeGreaterThanOrEqual(ROUNDS / 2);
});
