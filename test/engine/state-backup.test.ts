// The previous good state is kept by each run and restored by the command a damaged state's message names, run as
// a user runs it (`audience stack restore`); the runs themselves run the notes program in process.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { StateError } from "../../provider/engine/index.ts";
import { backupPath } from "../../provider/engine/backups.ts";
import { Snapshot } from "../../provider/engine/snapshot.ts";
import { audience } from "../cli/helpers.ts";
import { NOTES_PROJECT, runNotes } from "./notes-program.ts";

const PASSPHRASE = "state passphrase";
const dir = mkdtempSync(join(tmpdir(), "engine-state-backup-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the previous good state", () => {
  const stateDir = join(dir, "backups");
  const statePath = join(stateDir, "dev.json");
  const up = () => runNotes({ operation: "up", passphrase: PASSPHRASE, stateDir, env: { NOTES_DIR: stateDir } });

  it("is kept by each run, named with the command that restores it when the state is damaged, and restored by it", { timeout: 120_000 }, async () => {
    expect((await up()).ok).toBe(true);
    expect(existsSync(backupPath(statePath))).toBe(false); // nothing before the first run
    const good = readFileSync(statePath, "utf8");
    const again = await runNotes({ operation: "up", passphrase: PASSPHRASE, stateDir, env: { NOTES_DIR: stateDir }, config: { extra: "1" } });
    expect(again.ok, again.error).toBe(true);
    expect(readFileSync(backupPath(statePath), "utf8")).toBe(good);

    writeFileSync(statePath, '{"version": 3, "deployment": {"resources": [');
    const damaged = await up().catch((e: unknown) => e);
    expect(damaged).toBeInstanceOf(StateError);
    expect((damaged as Error).message).toContain(`\`audience stack restore --stack dev\` puts back the previous good state, kept in ${backupPath(statePath)}`);

    const restored = await audience(["stack", "restore", "--cwd", NOTES_PROJECT, "--state-dir", stateDir], { env: { PULUMI_CONFIG_PASSPHRASE: PASSPHRASE } });
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stderr).toContain(`restored stack dev from ${backupPath(statePath)}`);
    expect(readFileSync(statePath, "utf8")).toBe(good);
    expect(readdirSync(stateDir).filter((f) => f.startsWith("dev.json.damaged-"))).toHaveLength(1);
    expect((await Snapshot.load(statePath, PASSPHRASE)).resources.length).toBeGreaterThan(0);
  });

  it("when there is none, the message says so and how to start over", async () => {
    const lone = join(dir, "lone", "dev.json");
    mkdirSync(dirname(lone), { recursive: true });
    writeFileSync(lone, "{");
    await expect(Snapshot.load(lone, PASSPHRASE)).rejects.toThrow(`no backup of it was kept (${lone}.bak): remove it to start over`);
  });
});
