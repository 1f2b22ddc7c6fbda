// Records lost from a journal never make anything twice. A run's journal is recorded whole; then, for each cut (every
// record boundary, 100 seeded random byte offsets, and the journal deleted) the account holds everything that run made
// (the worst case: records of writes that did happen are lost), the state file is the one the run started from, and
// the lock the run held is left behind as a killed run leaves it. The next up must be refused with a message, or
// recover with each declared resource in the account once and in the state: none silent.
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it, vi } from "vitest";
import type { EngineEvent } from "../../provider/engine/events.ts";
import { Snapshot } from "../../provider/engine/snapshot.ts";
import { StateError } from "../../provider/engine/state-file.ts";
import { nativePrograms, PASSPHRASE } from "./native-programs.ts";
import { recordRun, upInProcess } from "./recorded-journal.ts";
import { random } from "./seeded-random.ts";

const world = nativePrograms({ port: 0, builds: { default: "immediate" } });
const SEED = 20261128;
const RANDOM_CUTS = 100;

afterEach(() => vi.restoreAllMocks());

it("a journal cut at every record boundary, at random bytes, or deleted, with all it recorded made: refused or recovered, never a duplicate", { timeout: 600_000 }, async () => {
  const run = await recordRun(world, "journal-loss", "Lost");
  const { dir, statePath, journal, boundaries, end, declared, lines } = run;
  const next = random(SEED);
  const randomCuts = Array.from({ length: RANDOM_CUTS }, () => 1 + Math.floor(next() * (journal.length - 1)));
  // undefined: the journal deleted.
  const cuts: (number | undefined)[] = [undefined, ...new Set([...boundaries, ...randomCuts])];
  const endIds = new Set(end.map((r) => r.id));
  // A process that is gone: the owner a killed run leaves in its lock.
  const gone = spawnSync(process.execPath, ["-e", ""]).pid;
  const results: { cut: number | undefined; refused?: string; ok: boolean; duplicates: number; orphans: number; missing: number }[] = [];

  for (const cut of cuts) {
    // The account holds everything the recorded run made, and nothing else.
    for (const r of await run.live()) if (!endIds.has(r.id)) expect([204, 404]).toContain(await run.remove(r));
    rmSync(join(dir, "state"), { recursive: true, force: true });
    mkdirSync(join(dir, "state"));
    writeFileSync(statePath, run.before);
    if (cut !== undefined) writeFileSync(`${statePath}.journal`, journal.subarray(0, cut));
    writeFileSync(`${statePath}.lock`, JSON.stringify({ pid: gone, host: hostname(), nonce: "killed", since: run.startedAt }));

    let outcome: { events: EngineEvent[] } | undefined;
    let refused: string | undefined;
    try {
      outcome = await upInProcess(run);
    } catch (e) {
      if (!(e instanceof StateError)) throw e;
      refused = e.message;
    }
    const ok = outcome !== undefined && !outcome.events.some((e) => e.kind === "step" && e.phase === "failed");
    const inState = new Set(refused ? [] : (await Snapshot.load(statePath, PASSPHRASE)).resources.map((r) => r.id));
    const now = await run.live();
    const keys = now.map((r) => r.key);
    results.push({
      cut, ok, ...(refused ? { refused } : {}),
      duplicates: keys.length - new Set(keys).size,
      orphans: refused ? 0 : now.filter((r) => !inState.has(r.id)).length,
      missing: refused ? 0 : declared.filter((k) => !keys.includes(k)).length,
    });
  }
  const refusedCount = results.filter((r) => r.refused).length;
  const recovered = results.filter((r) => !r.refused && r.ok && r.duplicates + r.orphans + r.missing === 0).length;
  const silent = results.filter((r) => !r.refused && r.duplicates + r.orphans + r.missing > 0);
  console.info(`journal loss: ${lines.length} records (${journal.length} bytes); ${cuts.length} cuts (the journal deleted, ${boundaries.length} record boundaries, `
    + `${cuts.length - 1 - boundaries.length} random offsets inside records): ${refusedCount} refused with a message, ${recovered} recovered with 0 duplicates, `
    + `${silent.length} silent (${silent.reduce((n, r) => n + r.duplicates, 0)} duplicates, ${silent.reduce((n, r) => n + r.orphans, 0)} orphans)`);
  for (const r of results.filter((x) => x.refused)) expect(r.refused).toMatch(/journal|state/);
  expect(silent).toEqual([]);
  expect(refusedCount + recovered).toBe(cuts.length);
});
