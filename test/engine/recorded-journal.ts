// A run's journal recorded whole, for tests that cut or lose it: a stack of resources 0..8 is made, then a run drops
// 0..2, updates 3..8 and creates 9..17; its journal is copied at the moment compaction would drop it, with the
// registrations the program made, so an up can replay them in process over any state and journal.
import { copyFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, vi } from "vitest";
import { Deployment } from "../../provider/engine/deployment.ts";
import type { EngineEvent } from "../../provider/engine/events.ts";
import { audienceExtension, inProcessProvider } from "../../provider/cli/extension.ts";
import { Journal } from "../../provider/engine/journal.ts";
import { lockStack } from "../../provider/engine/lock.ts";
import type { Registration } from "../../provider/engine/monitor.ts";
import { Snapshot } from "../../provider/engine/snapshot.ts";
import { makeSecret, type PropertyMap, type Value } from "../../provider/protocol/values.ts";
import { audienceResource } from "./audience-resources.ts";
import { inProcessRuntime, type ProgramContext } from "./in-process-runtime.ts";
import { PASSPHRASE, type NativePrograms } from "./native-programs.ts";

const FAMILIES = ["cohorts", "webhook_endpoints", "connections"] as const;

// Independent resources (no one's input is another's output), so the recorded registrations replay as they are. The
// program runs in process: the journal and the replays are the engine's own either way.
async function cutsProgram({ config, monitor }: ProgramContext): Promise<Record<string, Value>> {
  const from = Number(config.get("from") ?? 0);
  const to = Number(config.get("to") ?? 0);
  const bump = Number(config.get("bump") ?? 0);
  const tag = config.get("tag") ?? "Cut";
  const password = makeSecret(`${tag}-warehouse-password`);
  const made: Promise<unknown>[] = [];
  for (let i = from; i < to; i++) {
    if (i % 3 === 0) made.push(audienceResource(monitor, "cohorts", `cohort-${i}`, { name: `${tag} cohort ${i}`, streamName: "transactions", minCount: i + 1 + bump }));
    else if (i % 3 === 1) made.push(audienceResource(monitor, "webhook_endpoints", `hook-${i}`, { url: `https://hooks.example.com/${tag.toLowerCase()}/${i}`, enabledEvents: ["resource.errored"] }));
    else made.push(audienceResource(monitor, "connections", `warehouse-${i}`, { name: `${tag} warehouse ${i}`, options: { type: "postgres", host: `db-${i}-${bump}.example.com`, port: 5432, database: "analytics", schema: "audience", user: "delivery", password } }));
  }
  await Promise.all(made);
  return {};
}
const runtime = inProcessRuntime(cutsProgram);

export interface Live {
  family: string;
  id: string;
  key: string;
}

export interface RecordedRun {
  project: string;
  dir: string;
  statePath: string;
  /** The service's base URL and the account's key, as the replays run with them. */
  env: Record<string, string>;
  /** The state file the recorded run started from. */
  before: Buffer;
  /** Its journal, whole, and its records' lines. */
  journal: Buffer;
  lines: string[];
  /** Byte offsets where a record ends (0 first). */
  boundaries: number[];
  /** Each create's operation id: where its begin record ends; the id of what it made. */
  begunAt: Map<string, number>;
  made: Map<string, string>;
  /** The account once the run was done, and the keys it declares. */
  end: Live[];
  declared: string[];
  registrations: Registration[];
  outputs: [string, PropertyMap][];
  /** When the recorded run began (ms since the epoch). */
  startedAt: number;
  /** The program's resources in the account. */
  live(): Promise<Live[]>;
  /** Deletes one of them behind the stack's back; answers the status. */
  remove(r: Live): Promise<number>;
}

/** Records the run of a stack named `project`; `tag` names its resources in the account. */
export async function recordRun(world: NativePrograms, project: string, tag: string): Promise<RecordedRun> {
  const { apiKey } = await world.account(project);
  const dir = world.program(project, { index: `// The program runs in process: cutsProgram in ${import.meta.filename}.\n` });
  const statePath = join(dir, "state", "dev.json");
  const base = `${world.emulator.url}/v1`;
  const pattern = new RegExp(`${tag} |/${tag.toLowerCase()}/`);

  async function live(): Promise<Live[]> {
    const found: Live[] = [];
    for (const family of FAMILIES) {
      for (const r of await world.list<{ id: string; name?: string; url?: string }>(apiKey, family)) {
        const key = `${family}:${r.name ?? r.url ?? ""}`;
        if (pattern.test(key)) found.push({ family, id: r.id, key });
      }
    }
    return found;
  }

  // The stack before the recorded run: resources 0..8.
  const first = await world.run(dir, apiKey, "up", { config: { from: "0", to: "9", tag }, runtime });
  expect(first.ok, first.error).toBe(true);
  const before = readFileSync(statePath);

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
  const startedAt = Date.now();
  const second = await world.run(dir, apiKey, "up", { config: { from: "3", to: "18", bump: "1", tag }, runtime });
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
  const made = new Map<string, string>();
  const begunAt = new Map<string, number>();
  for (const [i, line] of lines.entries()) {
    const record = JSON.parse(line) as { begin?: { id: string; type: string }; end?: string; put?: { id?: string } };
    if (record.begin?.type === "creating") begunAt.set(record.begin.id, boundaries[i + 1]!);
    if (record.end !== undefined && begunAt.has(record.end) && record.put?.id) made.set(record.end, record.put.id);
  }
  expect(made.size).toBe(9);
  const remove = async (r: Live) => (await fetch(`${base}/${r.family}/${r.id}`, { method: "DELETE", headers: { authorization: `Bearer ${apiKey}` } })).status;
  return { project, dir, statePath, env: { AUDIENCE_BASE_URL: base, AUDIENCE_API_KEY: apiKey }, before, journal, lines, boundaries, begunAt, made, end, declared, registrations, outputs, startedAt, live, remove };
}

/**
 * `up` in this process, as `audience run up` runs it: the lock taken, the state replayed and claimed, the recorded
 * registrations declared again, the undeclared deleted. A state refused is thrown.
 */
export async function upInProcess({ statePath, project, registrations, outputs, env }: Pick<RecordedRun, "statePath" | "project" | "registrations" | "outputs" | "env">): Promise<{ events: EngineEvent[] }> {
  const unlock = await lockStack(statePath);
  try {
    const snapshot = await Snapshot.load(statePath, PASSPHRASE, undefined, { claim: true, interruptedSince: unlock.interruptedSince });
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
    await snapshot.close();
    return { events };
  } finally {
    await unlock();
  }
}
