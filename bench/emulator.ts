// Emulator rows: throughput at 32 concurrent callers against bare node:http serving the same bytes, and request
// latency and memory with 100,000 resources in the account against the same with 100. Every measured request is sent
// by a load process of its own (bench/service.ts load): the servers and the bench each have theirs.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request } from "undici";
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";
import { uniformInt } from "pure-rand/distribution/uniformInt";
import { atLeast, atMost, combined, inParallel, pathOf, percentile, startChild, type Bench, type Child, type HttpCall, type Load, type Row } from "./measure.ts";
import type { Answers, EmulatorReady, Loader } from "./service.ts";

const CONCURRENCY = 32;

function calls(ready: EmulatorReady) {
  const headers = { authorization: `Bearer ${ready.apiKey}` };
  const json = { ...headers, "content-type": "application/json" };
  return {
    get: { method: "GET", path: `/v1/cohorts/${ready.ids[0]}`, headers },
    // 100 ids drawn at random from every seeded one, a fresh set each request: no answer is asked for twice.
    list: { method: "GET", path: "/v1/cohorts", headers, randomIdsFrom: ready.idsFile },
    post: { method: "POST", path: "/v1/cohorts", headers: json, body: JSON.stringify({ name: "bench" }) },
  } satisfies Record<string, HttpCall>;
}

async function send(origin: string, call: HttpCall): Promise<{ status: number; type: string; body: string }> {
  const res = await request(`${origin}${pathOf(call)}`, { method: call.method, headers: call.headers ?? {}, body: call.body ?? null });
  const body = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${call.method} ${call.path}: ${res.statusCode} ${body}`);
  return { status: res.statusCode, type: String(res.headers["content-type"]), body };
}

type Server = Child<{ url: string }>;

/** Asks the load process for one of its tasks and answers what it measured. */
async function ask<P extends keyof Loader>(loader: Server, task: P, what: Parameters<Loader[P]>[0]): Promise<ReturnType<Loader[P]>> {
  const res = await request(`${loader.ready.url}${task}`, { method: "POST", body: JSON.stringify(what) });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`load process ${task}: ${res.statusCode} ${text}`);
  return JSON.parse(text) as ReturnType<Loader[P]>;
}

/** Starts the load process for `run`, and stops it after. */
async function withLoader<T>(run: (loader: Server) => Promise<T>): Promise<T> {
  const loader = await startChild<{ url: string }>("service.ts", ["load"]);
  try {
    return await run(loader);
  } finally {
    await loader.stop();
  }
}

/** A server's load figures and the CPU time its process spent per request, in µs. */
type Served = Load & { cpuUs: number };

/**
 * `ms` of load on each server once `warm` requests have warmed it up, in rounds taken bare, emulator, emulator, bare:
 * the machine is shared, and a change in its load during the measure then falls on both alike instead of on
 * whichever ran second.
 */
async function alternating(loader: Server, bare: Server, emulator: Server, call: HttpCall, ms: number, warm: number): Promise<{ base: Served; ours: Served }> {
  for (const server of [bare, emulator]) await ask(loader, "/warm", { origin: server.ready.url, call, concurrency: CONCURRENCY, count: warm });
  const spent = new Map<Server, number>([[bare, 0], [emulator, 0]]);
  const round = async (server: Server) => {
    const before = server.cpuMs();
    const measured = await ask(loader, "/load", { origin: server.ready.url, call, concurrency: CONCURRENCY, ms: ms / 2 });
    spent.set(server, (spent.get(server) ?? 0) + server.cpuMs() - before);
    return measured;
  };
  const base = [await round(bare)];
  const ours = [await round(emulator), await round(emulator)];
  base.push(await round(bare));
  const served = (server: Server, loads: Load[]): Served => {
    const all = combined(loads);
    return { ...all, cpuUs: ((spent.get(server) ?? 0) * 1000) / all.requests };
  };
  return { base: served(bare, base), ours: served(emulator, ours) };
}

export const emulatorHttp: Bench = {
  id: "emulator-http",
  async run({ quick }) {
    const ms = quick ? 1500 : 5000;
    // Both servers are measured as they run once warm: cold, the emulator's larger code runs several times slower.
    const warm = quick ? 10_000 : 20_000;
    const dir = mkdtempSync(join(tmpdir(), "audience-bench-"));
    const emulator = await startChild<EmulatorReady>("service.ts", ["emulator", "1000"]);
    // The ids filter draws from an account of 100,000 (20,000 with --quick).
    const many = quick ? 20_000 : 100_000;
    const large = await startChild<EmulatorReady>("service.ts", ["emulator", String(many)]);
    try {
      const c = calls(emulator.ready);
      const list = calls(large.ready).list;
      const measured = [
        { name: "GET by id", server: emulator, call: c.get, goal: 0.5 },
        { name: `?ids= with 100 random ids of ${many.toLocaleString("en-US")}, a fresh set each request`, server: large, call: list, goal: 0.3 },
        { name: "POST (create)", server: emulator, call: c.post, goal: 0.3 },
      ];
      // The bare server answers the bytes the emulator answered, for the same method and path.
      const answers: Answers = {};
      for (const { server, call } of measured) answers[`${call.method} ${call.path.split("?")[0]}`] = await send(server.ready.url, call);
      writeFileSync(join(dir, "answers.json"), JSON.stringify(answers));
      const bare = await startChild<{ url: string }>("service.ts", ["bare", join(dir, "answers.json")]);
      const rows: Row[] = [];
      try {
        await withLoader(async (loader) => {
          for (const { name, server, call, goal } of measured) {
            const { base, ours } = await alternating(loader, bare, server, call, ms, warm);
            const baselineWhat = "bare node:http serving the same bytes";
            const what = "emulator throughput";
            rows.push(atLeast({ what, measured: `${name}: req/s at ${CONCURRENCY} concurrent`, unit: "req/s", value: ours.rps, baseline: base.rps, baselineWhat }, goal));
            rows.push({ what, measured: `${name}: p99 at ${CONCURRENCY} concurrent`, unit: "ms", value: ours.p99, baseline: base.p99, baselineWhat, ratio: ours.p99 / base.p99, goal: "report" });
            // What the server process itself spends: steadier than req/s when other work shares the cores.
            rows.push({ what, measured: `${name}: server CPU per request`, unit: "µs", value: ours.cpuUs, baseline: base.cpuUs, baselineWhat, ratio: ours.cpuUs / base.cpuUs, goal: "report" });
          }
        });
      } finally {
        await bare.stop();
      }
      return rows;
    } finally {
      await emulator.stop();
      await large.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

interface Scale {
  create: number;
  remove: number;
  ids: number;
  rssMb: number;
  /** RSS once every document was answered (in `?ids=` lists of 100). */
  touchedMb: number;
  /** Peak RSS once a full list was answered. */
  listedPeakMb: number;
  listMs: number;
}

/**
 * `?ids=` calls, each for 100 different ids drawn at random (the same draws for every size): at 100,000 no two ask
 * for the same page, and at 100 each asks for all of them, in its own order.
 */
function randomLists(ids: string[], headers: Record<string, string>, reps: number): HttpCall[] {
  const rng = xoroshiro128plus(23);
  return Array.from({ length: reps }, () => {
    const picked = new Set<string>();
    while (picked.size < Math.min(100, ids.length)) picked.add(ids[uniformInt(rng, 0, ids.length - 1)]!);
    return { method: "GET", path: `/v1/cohorts?${[...picked].map((id) => `ids=${id}`).join("&")}`, headers };
  });
}

async function atSize(loader: Server, size: number, reps: number, lists: number): Promise<Scale> {
  const emulator = await startChild<EmulatorReady>("service.ts", ["emulator", String(size)]);
  try {
    const origin = emulator.ready.url;
    const c = calls(emulator.ready);
    const all = readFileSync(emulator.ready.idsFile, "utf8").split("\n");
    await send(origin, c.get);
    const create = await ask(loader, "/timings", { origin, calls: Array.from({ length: reps }, () => c.post) });
    const ids = await ask(loader, "/timings", { origin, calls: randomLists(all, c.get.headers, lists) });
    const doomed = emulator.ready.ids.slice(-reps);
    const remove = await ask(loader, "/timings", { origin, calls: doomed.map((id) => ({ method: "DELETE", path: `/v1/cohorts/${id}`, headers: c.get.headers })) });
    const { rssMb } = emulator.memory();
    // Every document answered once, 100 at a time: what the emulator then holds (its answers' JSON texts included).
    const kept = all.filter((id) => !doomed.includes(id));
    await inParallel(Math.ceil(kept.length / 100), 8, (i) => send(origin, { method: "GET", path: `/v1/cohorts?${kept.slice(i * 100, i * 100 + 100).map((id) => `ids=${id}`).join("&")}`, headers: c.get.headers }));
    const touchedMb = emulator.memory().rssMb;
    const [listMs = Number.NaN] = await ask(loader, "/timings", { origin, calls: [{ method: "GET", path: "/v1/cohorts", headers: c.get.headers }] });
    return { create: percentile(create, 99), remove: percentile(remove, 99), ids: percentile(ids, 99), rssMb, touchedMb, listedPeakMb: emulator.memory().peakMb, listMs };
  } finally {
    await emulator.stop();
  }
}

export const emulatorScale: Bench = {
  id: "emulator-scale",
  async run({ quick }) {
    const large = quick ? 20_000 : 100_000;
    const reps = quick ? 30 : 100;
    // A p99 of 100 calls is their second slowest, which two slow calls decide: the lists,
    // a few ms each, take 500 calls, whose p99 is the sixth slowest.
    const lists = quick ? 30 : 500;
    const { small, big } = await withLoader(async (loader) => ({ small: await atSize(loader, 100, reps, lists), big: await atSize(loader, large, reps, lists) }));
    const what = `emulator at ${large.toLocaleString("en-US")} resources`;
    const baselineWhat = "the same at 100 resources";
    const p99 = (measured: string, key: "create" | "remove" | "ids") =>
      atMost({ what, measured: `${measured} p99 (sequential)`, unit: "ms", value: big[key], baseline: small[key], baselineWhat }, 2);
    const rss = (measured: string, value: number, baseline: number): Row =>
      ({ what, measured, unit: "MB", value, baseline, baselineWhat, ratio: value / baseline, goal: "<= 300 MB", met: value <= 300 });
    return [
      p99("create", "create"), p99("delete", "remove"), p99("?ids= with 100 random ids", "ids"),
      rss("RSS", big.rssMb, small.rssMb),
      rss("RSS after every document was answered", big.touchedMb, small.touchedMb),
      rss("peak RSS after one full list", big.listedPeakMb, small.listedPeakMb),
      { what, measured: "full list (one GET)", unit: "ms", value: big.listMs, baseline: small.listMs, baselineWhat, ratio: big.listMs / small.listMs, goal: "report" },
    ];
  },
};
