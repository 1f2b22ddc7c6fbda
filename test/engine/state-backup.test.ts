// The last good copy of the state is kept by each run that writes the state (a fresh up too), and a damaged state is
// rebuilt from it by the command its message names, run as a user runs it (`audience stack restore`); the runs
// themselves run the notes program in process.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { StateError } from "../../provider/engine/index.ts";
import { backupPath } from "../../provider/engine/backups.ts";
import { Snapshot } from "../../provider/engine/snapshot.ts";
import { audience } from "../cli/helpers.ts";
import { NOTES_PROJECT, runNotes } from "./notes-program.ts";

const PASSPHRASE = "state passphrase";
const dir = mkdtempSync(join(tmpdir(), "engine-state-backup-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the last good copy of the state", () => {
  const stateDir = join(dir, "backups");
  const statePath = join(stateDir, "dev.json");
  const up = (config?: Record<string, string>) => runNotes({ operation: "up", passphrase: PASSPHRASE, stateDir, env: { NOTES_DIR: stateDir }, ...(config ? { config } : {}) });
  const restore = () => audience(["stack", "restore", "--cwd", NOTES_PROJECT, "--state-dir", stateDir], { env: { PULUMI_CONFIG_PASSPHRASE: PASSPHRASE } });

  it("is kept by a fresh up and a no-op up, and a state cut in half is rebuilt from it: the next up creates nothing", { timeout: 120_000 }, async () => {
    expect((await up()).ok).toBe(true);
    expect(readFileSync(backupPath(statePath), "utf8")).toBe(readFileSync(statePath, "utf8"));
    const noop = await up();
    expect(noop.ok, noop.error).toBe(true);
    expect(readFileSync(backupPath(statePath), "utf8")).toBe(readFileSync(statePath, "utf8"));
    const changed = await up({ extra: "1" });
    expect(changed.ok, changed.error).toBe(true);
    const good = readFileSync(statePath, "utf8");
    expect(readFileSync(backupPath(statePath), "utf8")).toBe(good);
    const held = (await Snapshot.load(statePath, PASSPHRASE)).resources.map((r) => r.urn).sort();

    writeFileSync(statePath, good.slice(0, good.length / 2));
    const damaged = await up({ extra: "1" }).catch((e: unknown) => e);
    expect(damaged).toBeInstanceOf(StateError);
    // The command it names runs as printed, from where the user is: it names the program and the state's directory.
    const advice = /`(audience stack restore [^`]*)` rebuilds it from its last good copy \(([^)]*)\) and its journal/.exec((damaged as Error).message);
    expect(advice?.[2]).toBe(backupPath(statePath));
    expect(advice?.[1]).toBe(`audience stack restore --cwd ${relative(process.cwd(), NOTES_PROJECT)} --state-dir ${stateDir}`);
    const restored = await audience(advice![1]!.split(" ").slice(1), { env: { PULUMI_CONFIG_PASSPHRASE: PASSPHRASE } });
    expect(restored.code, restored.stderr).toBe(0);
    // It says what it restores before it does.
    expect(restored.stderr).toMatch(new RegExp(`restoring stack dev from ${backupPath(statePath).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: the state written at \\d{4}-\\d\\d-\\d\\dT[^,]+, holding \\d+ resources`));
    expect((await Snapshot.load(statePath, PASSPHRASE)).resources.map((r) => r.urn).sort()).toEqual(held);
    expect(readdirSync(stateDir).filter((f) => f.startsWith("dev.json.damaged-"))).toHaveLength(1);
    // Following the advice duplicates nothing: the next up finds every resource in the restored state.
    const after = await up({ extra: "1" });
    expect(after.ok, after.error).toBe(true);
    expect(after.changes.create).toBeUndefined();
  });

  it("is never put back over a whole state: after an import, restore refuses and the imported state stays", { timeout: 120_000 }, async () => {
    const exported = await audience(["stack", "export", "--cwd", NOTES_PROJECT, "--state-dir", stateDir], { env: { PULUMI_CONFIG_PASSPHRASE: PASSPHRASE } });
    expect(exported.code, exported.stderr).toBe(0);
    expect((await up({ extra: "2" })).ok).toBe(true);
    const file = join(dir, "earlier.json");
    writeFileSync(file, exported.stdout);
    const imported = await audience(["stack", "import", "--cwd", NOTES_PROJECT, "--state-dir", stateDir, "--file", file], { env: { PULUMI_CONFIG_PASSPHRASE: PASSPHRASE } });
    expect(imported.code, imported.stderr).toBe(0);
    const confirmed = readFileSync(statePath, "utf8");
    const refused = await restore();
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`the state of stack dev (${statePath}) is whole: nothing to restore`);
    expect(readFileSync(statePath, "utf8")).toBe(confirmed);
    // The copy is the imported state too: a later damage goes back to it, never past it.
    expect(readFileSync(backupPath(statePath), "utf8")).toBe(confirmed);
  });

  it("when there is none, the message says so and what else to do", async () => {
    const lone = join(dir, "lone", "dev.json");
    mkdirSync(dirname(lone), { recursive: true });
    writeFileSync(lone, "{");
    await expect(Snapshot.load(lone, PASSPHRASE)).rejects.toThrow(`no copy of it was kept (${lone}.bak): import a \`pulumi stack export\``);
  });
});
