// Crash consistency the way storage engines prove it: the journal of a real `up` (creates, updates and deletes) is
// recorded, then cut at every record boundary and at seeded random byte offsets, as a crash would leave it. For each
// cut the account holds what it could hold at that moment at worst (every create whose start is on disk made,
// nothing begun later), the state is replayed, an `up` runs in process, and the account must then hold each declared
// resource exactly once, each recorded in the state, with nothing left pending.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it, vi } from "vitest";
import { Snapshot } from "../../provider/engine/snapshot.ts";
import { nativePrograms, PASSPHRASE } from "./native-programs.ts";
import { recordRun, upInProcess } from "./recorded-journal.ts";
import { random } from "./seeded-random.ts";

const world = nativePrograms({ port: 0, builds: { default: "immediate" } });
const SEED = 20261124;
const RANDOM_CUTS = 100;

afterEach(() => vi.restoreAllMocks());

it("a journal cut at every record boundary and at random bytes replays into an up with no duplicate and no orphan", { timeout: 600_000 }, async () => {
  const run = await recordRun(world, "journal-cuts", "Cut");
  const { dir, statePath, journal, boundaries, begunAt, made, end, declared, lines } = run;
  const next = random(SEED);
  const randomCuts = Array.from({ length: RANDOM_CUTS }, () => 1 + Math.floor(next() * (journal.length - 1)));
  // Largest first: what a later crash would not have made yet only grows, so the account is trimmed, never restored.
  const cuts = [...new Set([...boundaries, ...randomCuts])].sort((a, b) => b - a);
  const unmade = new Set<string>();
  const original = new Set(end.map((r) => r.id));
  const results: { cut: number; duplicates: number; orphans: number; missing: number; pending: number; torn: boolean }[] = [];

  for (const cut of cuts) {
    // The account as a crash at this byte could leave it, at worst: creates begun before it made their resource.
    for (const [op, at] of begunAt) if (at > cut && made.has(op)) unmade.add(made.get(op)!);
    for (const r of await run.live()) {
      if (!original.has(r.id) || unmade.has(r.id)) expect([204, 404]).toContain(await run.remove(r));
    }
    rmSync(join(dir, "state"), { recursive: true, force: true });
    mkdirSync(join(dir, "state"));
    writeFileSync(statePath, run.before);
    writeFileSync(`${statePath}.journal`, journal.subarray(0, cut));

    const { events } = await upInProcess(run);
    // A cut just before a record's newline leaves that record whole: it is replayed, and nothing is reported torn.
    const torn = !boundaries.includes(cut) && !boundaries.includes(cut + 1);
    const failed = events.filter((e) => e.kind === "step" && e.phase === "failed");
    expect(failed, `cut at byte ${cut}`).toEqual([]);
    if (torn) expect(events.some((e) => e.kind === "diagnostic" && e.message.includes("was cut short by a crash")), `cut at byte ${cut}`).toBe(true);

    const after = await Snapshot.load(statePath, PASSPHRASE);
    const inState = new Set(after.resources.map((r) => r.id));
    const now = await run.live();
    const keys = now.map((r) => r.key);
    results.push({
      cut, torn, pending: after.pending.length,
      duplicates: keys.length - new Set(keys).size,
      orphans: now.filter((r) => !inState.has(r.id)).length,
      missing: declared.filter((k) => !keys.includes(k)).length,
    });
  }
  const bad = results.filter((r) => r.duplicates + r.orphans + r.missing + r.pending > 0);
  console.info(`journal cuts: ${lines.length} records (${journal.length} bytes); ${cuts.length} cuts tried `
    + `(${boundaries.length} record boundaries, ${results.filter((r) => r.torn).length} inside a record); `
    + `${results.reduce((n, r) => n + r.duplicates, 0)} duplicates, ${results.reduce((n, r) => n + r.orphans, 0)} orphans`);
  expect(bad).toEqual([]);
});
