// Crash consistency the way storage engines prove it: the journal of a real `up` (creates, updates and deletes) is
// recorded, then cut at every record boundary and at seeded random byte offsets, as a crash would leave it. For each
// cut the account holds what it could hold at that moment at worst (every create whose start is on disk made,
// nothing begun later), the state is replayed, an `up` runs in process, and the account must then hold each declared
// resource exactly once, each recorded in the state, with nothing left pending.
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it, vi } from "vitest";
import { Deployment } from "../../provider/engine/deployment.ts";
import type { EngineEvent } from "../../provider/engine/events.ts";
import { audienceExtension, inProcessProvider } from "../../provider/cli/extension.ts";
import { Journal } from "../../provider/engine/journal.ts";
import type { Registration } from "../../provider/engine/monitor.ts";
import { Snapshot } from "../../provider/engine/snapshot.ts";
import { makeSecret, type PropertyMap, type Value } from "../../provider/protocol/values.ts";
import { audienceResource } from "./audience-resources.ts";
import { inProcessRuntime, type ProgramContext } from "./in-process-runtime.ts";
import { nativePrograms, PASSPHRASE } from "./native-programs.ts";

const world = nativePrograms({ port: 0, builds: { default: "immediate" } });
const SEED = 20261124;
const RANDOM_CUTS = 100;
const FAMILIES = ["cohorts", "webhook_endpoints", "connections"] as const;

// Independent resources (no one's input is another's output), so the recorded registrations replay as they are. The
// program runs in process: the journal and the replays are the engine's own either way.
async function cutsProgram({ config, monitor }: ProgramContext): Promise<Record<string, Value>> {
  const from = Number(config.get("from") ?? 0);
  const to = Number(config.get("to") ?? 0);
  const bump = Number(config.get("bump") ?? 0);
  const password = makeSecret("cut-warehouse-password");
  const made: Promise<unknown>[] = [];
  for (let i = from; i < to; i++) {
    if (i % 3 === 0) made.push(audienceResource(monitor, "cohorts", `cohort-${i}`, { name: `Cut cohort ${i}`, streamName: "transactions", minCount: i + 1 + bump }));
    else if (i % 3 === 1) made.push(audienceResource(monitor, "webhook_endpoints", `hook-${i}`, { url: `https://hooks.example.com/cut/${i}`, enabledEvents: ["resource.errored"] }));
    else made.push(audienceResource(monitor, "connections", `warehouse-${i}`, { name: `Cut warehouse ${i}`, options: { type: "postgres", host: `db-${i}-${bump}.example.com`, port: 5432, database: "analytics", schema: "audience", user: "delivery", password } }));
  }
  await Promise.all(made);
  return {};
}
const runtime = inProcessRuntime(cutsProgram);

afterEach(() => vi.restoreAllMocks());

/** A seeded generator, so the random cuts are the same on every run. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Live {
  family: string;
  id: string;
  key: string;
}

it("a journal cut at every record boundary and at random bytes replays into an up with no duplicate and no orphan", { timeout: 600_000 }, async () => {
  const { apiKey } = await world.account("journal-cuts");
  const dir = world.program("journal-cuts", { index: "// The program runs in process: cutsProgram in journal-cuts.test.ts.\n" });
  const project = "journal-cuts";
  const statePath = join(dir, "state", "dev.json");
  const base = `${url()}/v1`;

  async function live(): Promise<Live[]> {
    const found: Live[] = [];
    for (const family of FAMILIES) {
      for (const r of await world.list<{ id: string; name?: string; url?: string }>(apiKey, family)) {
        const key = `${family}:${r.name ?? r.url ?? ""}`;
        if (/Cut |\/cut\//.test(key)) found.push({ family, id: r.id, key });
      }
    }
    return found;
  }
  function url(): string {
    return world.emulator.url;
  }
  const api = (method: string, path: string) => fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${apiKey}` } });

  // The stack before the recorded run: resources 0..8.
  const first = await world.run(dir, apiKey, "up", { config: { from: "0", to: "9" }, runtime });
  expect(first.ok, first.error).toBe(true);
  const before = readFileSync(statePath);

  // The recorded run drops 0..2, updates 3..8 (cohorts and connections change) and creates 9..17. Its journal is
  // copied at the moment compaction would drop it; its registrations are what the in-process ups replay.
  const recorded = join(dir, "recorded.journal");
  const removeJournal = Journal.prototype.remove;
  vi.spyOn(Journal.prototype, "remove").mockImplementation(async function (this: Journal) {
    await this.settled();
    if (existsSync(this.path)) copyFileSync(this.path, recorded);
    return removeJournal.call(this);
  });
  const registrations: Registration[] = [];
  const outputs: [string, PropertyMap][] = [];
  const register = Deployment.prototype.register;
  vi.spyOn(Deployment.prototype, "register").mockImplementation(function (this: Deployment, reg: Registration) {
    registrations.push(structuredClone(reg));
    return register.call(this, reg);
  });
  const registerOutputs = Deployment.prototype.registerOutputs;
  vi.spyOn(Deployment.prototype, "registerOutputs").mockImplementation(function (this: Deployment, urn: string, out: PropertyMap) {
    outputs.push([urn, structuredClone(out)]);
    return registerOutputs.call(this, urn, out);
  });
  const config = { from: "3", to: "18", bump: "1" };
  const second = await world.run(dir, apiKey, "up", { config, runtime });
  vi.restoreAllMocks();
  expect(second.ok, second.error).toBe(true);
  expect(second.changes).toMatchObject({ create: 9, update: 4, delete: 3 });
  const journal = readFileSync(recorded);
  const end = await live();
  const declared = end.map((r) => r.key).sort();
  expect(declared).toHaveLength(15);

  // Which create each record boundary has begun, and what each made (its id, from the record that ended it).
  const lines = journal.toString("utf8").split("\n").filter((l) => l !== "");
  const boundaries = [0];
  for (const line of lines) boundaries.push(boundaries.at(-1)! + Buffer.byteLength(line) + 1);
  const made = new Map<string, string>(); // create's operation id -> id of what it made
  const begunAt = new Map<string, number>(); // create's operation id -> byte offset where its record ends
  for (const [i, line] of lines.entries()) {
    const record = JSON.parse(line) as { begin?: { id: string; type: string }; end?: string; put?: { id?: string } };
    if (record.begin?.type === "creating") begunAt.set(record.begin.id, boundaries[i + 1]!);
    if (record.end !== undefined && begunAt.has(record.end) && record.put?.id) made.set(record.end, record.put.id);
  }
  expect(made.size).toBe(9);

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
    for (const r of await live()) {
      if (!original.has(r.id) || unmade.has(r.id)) expect([204, 404]).toContain((await api("DELETE", `/${r.family}/${r.id}`)).status);
    }
    rmSync(join(dir, "state"), { recursive: true, force: true });
    mkdirSync(join(dir, "state"));
    writeFileSync(statePath, before);
    writeFileSync(`${statePath}.journal`, journal.subarray(0, cut));

    const { events } = await upInProcess({ statePath, project, registrations, outputs, env: { AUDIENCE_BASE_URL: base, AUDIENCE_API_KEY: apiKey } });
    // A cut just before a record's newline leaves that record whole: it is replayed, and nothing is reported torn.
    const torn = !boundaries.includes(cut) && !boundaries.includes(cut + 1);
    const failed = events.filter((e) => e.kind === "step" && e.phase === "failed");
    expect(failed, `cut at byte ${cut}`).toEqual([]);
    if (torn) expect(events.some((e) => e.kind === "diagnostic" && e.message.includes("was cut short by a crash")), `cut at byte ${cut}`).toBe(true);

    const after = await Snapshot.load(statePath, PASSPHRASE);
    const inState = new Set(after.resources.map((r) => r.id));
    const now = await live();
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

/** `up` in this process: the state replayed, the recorded registrations declared again, the undeclared deleted. */
async function upInProcess({ statePath, project, registrations, outputs, env }: {
  statePath: string; project: string; registrations: Registration[]; outputs: [string, PropertyMap][]; env: Record<string, string>;
}): Promise<{ events: EngineEvent[] }> {
  const snapshot = await Snapshot.load(statePath, PASSPHRASE);
  const events: EngineEvent[] = [];
  const deployment: Deployment = new Deployment({
    project, stack: "dev", snapshot, dryRun: false, parallel: 8,
    provider: async () => own,
    stackOutputs: async () => ({}),
    emit: (e) => events.push(e),
    extension: audienceExtension({ faithful: false }),
  });
  const own = inProcessProvider({ config: {}, env, report: (m) => deployment.log("warning", m, "") });
  await deployment.reportInterrupted();
  await Promise.all(registrations.map((reg) => deployment.register(structuredClone(reg))));
  for (const [urn, out] of outputs) await deployment.registerOutputs(urn, structuredClone(out));
  await deployment.settled();
  if (!deployment.progress.failed) await deployment.deleteUndeclared();
  deployment.reportUnresolved();
  await snapshot.compact();
  return { events };
}
