// The journal keeps its file open between writes, one handle for the run, and lets it go however the run ends: the
// descriptors of this process that point at a journal are counted before and after.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Journal } from "../../provider/engine/journal.ts";
import { backupPath } from "../../provider/engine/backups.ts";
import { runNotes } from "./notes-program.ts";

const PASSPHRASE = "journal handle passphrase";
const dir = mkdtempSync(join(tmpdir(), "engine-journal-handle-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** This process's open descriptors on files under `under`. */
function openUnder(under: string): string[] {
  const open: string[] = [];
  for (const fd of readdirSync("/proc/self/fd")) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(under)) open.push(target);
    } catch {
      // closed since it was listed (the listing's own descriptor, for one)
    }
  }
  return open;
}

describe("the journal's file", () => {
  it("is opened once for many writes and closed by close(); a later append opens it again", async () => {
    const path = join(dir, "unit", "dev.json.journal");
    const journal = new Journal(path);
    await Promise.all([journal.append({ n: 0 }), journal.append({ n: 1 })]);
    for (let n = 2; n < 20; n++) await journal.append({ n });
    expect(openUnder(join(dir, "unit"))).toEqual([path]);
    await journal.close();
    expect(openUnder(join(dir, "unit"))).toEqual([]);
    await journal.append({ n: 20 });
    expect((await Journal.read(path)).records).toEqual(Array.from({ length: 21 }, (_, n) => ({ n })));
    await journal.remove();
    expect(openUnder(join(dir, "unit"))).toEqual([]);
  });

  it("is not left open by a write that failed", async () => {
    const path = join(dir, "failing", "dev.json.journal");
    mkdirSync(path, { recursive: true }); // a directory where the file should be: opening it fails
    const journal = new Journal(path);
    await expect(journal.append({ n: 0 })).rejects.toThrow(/EISDIR/);
    expect(openUnder(join(dir, "failing"))).toEqual([]);
  });
});

describe("a run", () => {
  const stateDir = join(dir, "runs");
  const statePath = join(stateDir, "dev.json");
  const run = (config: Record<string, string> = {}) => runNotes({ operation: "up", passphrase: PASSPHRASE, stateDir, env: { NOTES_DIR: stateDir }, config });

  it("that fails leaves no descriptor open on its state's files", { timeout: 120_000 }, async () => {
    const first = await run();
    expect(first.ok, first.error).toBe(true);
    const failed = await run({ broken: "true", extra: "2" });
    expect(failed.ok).toBe(false);
    expect(failed.changes["create"]).toBeGreaterThan(0); // it wrote to the journal before it failed
    expect(openUnder(stateDir)).toEqual([]);
  });

  it("whose state cannot be written at its end leaves no descriptor open either, and keeps its journal", { timeout: 120_000 }, async () => {
    // A directory where the backup goes: the state file cannot be kept as the backup, so compacting fails.
    rmSync(backupPath(statePath), { force: true });
    mkdirSync(join(backupPath(statePath), "in-the-way"), { recursive: true });
    const error = await run({ extra: "4" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(openUnder(stateDir)).toEqual([]);
    // What the run recorded is still in its journal, replayed by the next run.
    expect(readFileSync(`${statePath}.journal`, "utf8")).toContain("extra-3");
    rmSync(backupPath(statePath), { recursive: true });
    const next = await run({ extra: "4" });
    expect(next.ok, next.error).toBe(true);
    expect(next.changes["create"] ?? 0).toBe(0);
  });
});
