// A run killed mid-up (engine, program and provider host at once, as a crashed machine) leaves a state that
// still reads, says which creates were interrupted, and the next up converges without redoing finished work.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, expect, it } from "vitest";
import { runProgram } from "../../provider/cli/program.ts";
import { Snapshot } from "../../provider/engine/snapshot.ts";
import { BUILT_AUDIENCE, userEnv } from "../cli/helpers.ts";

const FIXTURE = join(import.meta.dirname, "fixtures", "notes");
const PASSPHRASE = "crash passphrase";
const dir = mkdtempSync(join(tmpdir(), "engine-crash-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const journal = () => (existsSync(join(dir, "journal.log")) ? readFileSync(join(dir, "journal.log"), "utf8").trim().split("\n") : []);
const config = { extra: "6", dropTwo: "true" };

it("an up killed halfway is finished by the next up", { timeout: 120_000 }, async () => {
  const child = spawn(
    process.execPath,
    [BUILT_AUDIENCE, "run", "up", "--yes", "--cwd", FIXTURE, "--state-dir", dir, ...Object.entries(config).flatMap(([k, v]) => ["-c", `${k}=${v}`])],
    { env: userEnv({ NOTES_DIR: dir, PULUMI_CONFIG_PASSPHRASE: PASSPHRASE }), detached: true, stdio: "ignore" },
  );
  const exited = new Promise((resolve) => child.once("exit", resolve));
  for (let waited = 0; journal().filter((l) => l.startsWith("created")).length < 2; waited += 25) {
    if (waited > 60_000) throw new Error("the first run never created anything");
    await sleep(25);
  }
  process.kill(-child.pid!, "SIGKILL");
  await exited;

  // What the killed run left: the state file and the journal of its steps, read as the next run reads them.
  const after = await Snapshot.load(join(dir, "dev.json"), PASSPHRASE);
  const recorded = after.resources.filter((r) => r.type.endsWith(":Note")).map((r) => r.urn.split("::").pop());
  const pending = after.pending;
  expect(recorded.length + pending.length).toBeGreaterThan(0);

  const before = journal().length;
  const r = await runProgram({ cwd: FIXTURE, operation: "up", passphrase: PASSPHRASE, stateDir: dir, env: { NOTES_DIR: dir }, config });
  expect(r.ok, r.error).toBe(true);
  const createdNow = journal().slice(before).filter((l) => l.startsWith("create ")).map((l) => l.split(" ")[1]);
  for (const name of recorded) expect(createdNow).not.toContain(name);
  for (const op of pending) expect(r.diagnostics.some((d) => d.severity === "warning" && d.message.includes(op.resource.urn))).toBe(true);
  const notes = ["one", "vault", "shelf-inner", ...Array.from({ length: 6 }, (_, i) => `extra-${i}`)].sort();
  expect([...recorded, ...createdNow].sort()).toEqual(notes);
  const final = JSON.parse(readFileSync(join(dir, "dev.json"), "utf8")) as {
    deployment: { resources: { urn: string; type: string }[]; pending_operations?: unknown[] };
  };
  expect(final.deployment.resources.filter((x) => x.type.endsWith(":Note")).map((x) => x.urn.split("::").pop()).sort()).toEqual(notes);
  expect(final.deployment.pending_operations).toBeUndefined();
  // The journal of the killed run was folded into the state file.
  expect(existsSync(join(dir, "dev.json.journal"))).toBe(false);
});
