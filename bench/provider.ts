// Provider rows: the first answer of a fresh dynamic-provider host, as every run of the Pulumi CLI starts one; each
// lifecycle operation through the real dynamic-provider host, against a bare dynamic provider making the same undici
// call through the same host; and the service requests each operation sends.
import { DynamicProviderHost } from "../provider/engine/provider-host.ts";
import type { PropertyMap } from "../provider/protocol/values.ts";
import { providerModule } from "../provider/runtime/resources/shim.ts";
import { atMost, median, ROOT, startChild, type Bench, type Row } from "./measure.ts";
import type { EmulatorReady } from "./service.ts";

// The baseline provider: one undici call per operation, nothing else. `require` is the host's.
const BARE_PROVIDER = `exports.handler = () => {
  const { Pool } = require("undici");
  const base = new URL(process.env.AUDIENCE_BASE_URL);
  const pool = new Pool(base.origin);
  const headers = { authorization: "Bearer " + process.env.AUDIENCE_API_KEY, "content-type": "application/json" };
  const call = async (method, path, body) => {
    const res = await pool.request({ method, path: base.pathname + path, headers, body: body === undefined ? null : JSON.stringify(body) });
    const text = await res.body.text();
    if (res.statusCode >= 300) throw new Error(method + " " + path + ": " + res.statusCode + " " + text);
    return text ? JSON.parse(text) : undefined;
  };
  return {
    async create(inputs) { const doc = await call("POST", "/cohorts", { name: inputs.name }); return { id: doc.id, outs: doc }; },
    async read(id) { return { id, props: await call("GET", "/cohorts/" + id) }; },
    async update(id, olds, news) { return { outs: await call("PATCH", "/cohorts/" + id, { name: news.name }) }; },
    async delete(id) { await call("DELETE", "/cohorts/" + id); },
  };
};`;

const URN = "urn:pulumi:bench::bench::pulumi-nodejs:dynamic/audience:Cohort::bench";
const OPS = ["create", "read", "update", "delete"] as const;

export const provider: Bench = {
  id: "provider",
  async run({ quick }) {
    const emulator = await startChild<EmulatorReady>("service.ts", ["emulator", "0"]);
    const env = { ...process.env, AUDIENCE_BASE_URL: `${emulator.ready.url}/v1`, AUDIENCE_API_KEY: emulator.ready.apiKey, NODE_OPTIONS: "--conditions=source" };
    const host = await DynamicProviderHost.start({ cwd: ROOT, env, engineAddress: "127.0.0.1:1" });
    try {
      await host.configure({});
      const inputsOf = (name: string, bare: boolean): PropertyMap =>
        bare ? { name, __provider: BARE_PROVIDER } : { name, deletionMode: "delete", __provider: providerModule("cohorts") };

      /** One create, read, update and delete; answers each one's ms. */
      const lifecycle = async (i: number, bare: boolean) => {
        const ms: Record<(typeof OPS)[number], number> = { create: 0, read: 0, update: 0, delete: 0 };
        const time = async <T>(op: (typeof OPS)[number], fn: () => Promise<T>) => {
          const t = performance.now();
          const result = await fn();
          ms[op] = performance.now() - t;
          return result;
        };
        const inputs = inputsOf(`cohort ${i}`, bare);
        const checked = bare ? inputs : (await host.check(URN, {}, inputs)).inputs;
        const created = await time("create", () => host.create(URN, checked));
        await time("read", () => host.read(created.id, URN, created.outputs, checked));
        const news = bare ? inputsOf(`renamed ${i}`, true) : (await host.check(URN, checked, inputsOf(`renamed ${i}`, false))).inputs;
        const outs = await time("update", () => host.update(created.id, URN, created.outputs, news, checked));
        await time("delete", () => host.delete(created.id, URN, outs, news));
        return ms;
      };
      const starts = await firstAnswers(env, quick ? 3 : 7, inputsOf);
      await lifecycle(-1, true);
      await lifecycle(-2, false);
      const runs = { audience: [] as Record<string, number>[], bare: [] as Record<string, number>[] };
      for (let i = 0; i < (quick ? 25 : 150); i++) {
        runs.bare.push(await lifecycle(i, true));
        runs.audience.push(await lifecycle(i, false));
      }
      const rows: Row[] = OPS.map((op) => atMost({
        what: "provider overhead", measured: `${op} through the dynamic-provider host (median)`, unit: "ms",
        value: median(runs.audience.map((r) => r[op]!)), baseline: median(runs.bare.map((r) => r[op]!)),
        baselineWhat: "a bare dynamic provider making the same undici call through the same host",
      }, 1.2));
      return [starts, ...rows, ...(await requestsPerOperation(host, emulator.ready, inputsOf("counted", false)))];
    } finally {
      await host.close();
      await emulator.stop();
    }
  },
};

/**
 * A fresh host from its start to its answer to a cohort's check, the first call of a run, which loads the provider
 * the shim names (ours from the built package, as installed), against the same with the bare provider (whose loading
 * requires undici for its calls; the host answers its check itself): what our provider adds to every run's start.
 * Median of `rounds`, taken in turn.
 */
async function firstAnswers(env: NodeJS.ProcessEnv, rounds: number, inputsOf: (name: string, bare: boolean) => PropertyMap): Promise<Row> {
  const { NODE_OPTIONS: _source, ...installed } = env;
  const firstAnswer = async (bare: boolean) => {
    const t = performance.now();
    const host = await DynamicProviderHost.start({ cwd: ROOT, env: installed, engineAddress: "127.0.0.1:1" });
    try {
      await host.configure({});
      await host.check(URN, {}, inputsOf("first", bare));
      return performance.now() - t;
    } finally {
      await host.close();
    }
  };
  const bare: number[] = [];
  const audience: number[] = [];
  for (let i = 0; i < rounds; i++) {
    bare.push(await firstAnswer(true));
    audience.push(await firstAnswer(false));
  }
  const value = median(audience);
  const baseline = median(bare);
  return {
    what: "provider start", measured: `a fresh dynamic-provider host's first answer, a cohort's check (median of ${rounds})`, unit: "ms", value, baseline,
    baselineWhat: "the same host and check with the bare dynamic provider", ratio: value / baseline, goal: "report",
  };
}

/** Service requests of each operation, from the emulator's request log. */
async function requestsPerOperation(host: DynamicProviderHost, emulator: EmulatorReady, inputs: PropertyMap): Promise<Row[]> {
  const log = async () => ((await (await fetch(`${emulator.url}/_emulator/requests`)).json()) as { seq: number; path: string }[])
    .filter((r) => !r.path.startsWith("/_emulator"));
  const count = async (fn: () => Promise<unknown>) => {
    const since = (await log()).at(-1)?.seq ?? 0;
    await fn();
    return (await log()).filter((r) => r.seq > since).length;
  };
  const checked = (await host.check(URN, {}, inputs)).inputs;
  let created = { id: "", outputs: {} as PropertyMap };
  const counts: [string, number, number][] = [];
  counts.push(["create", await count(async () => (created = await host.create(URN, checked))), 1]);
  counts.push(["no-op diff", await count(() => host.diff(created.id, URN, created.outputs, checked, checked, [])), 0]);
  const news = (await host.check(URN, checked, { ...inputs, name: "counted again" })).inputs;
  let outs: PropertyMap = {};
  counts.push(["update", await count(async () => (outs = await host.update(created.id, URN, created.outputs, news, checked))), 1]);
  counts.push(["refresh", await count(() => host.read(created.id, URN, outs, news)), 1]);
  counts.push(["delete", await count(() => host.delete(created.id, URN, outs, news)), 1]);
  return counts.map(([op, value, expected]) => ({
    what: "requests per operation", measured: op, unit: "requests", value, baseline: expected, baselineWhat: "the one request the operation needs",
    ratio: expected === 0 ? (value === 0 ? 1 : Number.POSITIVE_INFINITY) : value / expected, goal: "equal", met: value === expected,
  }));
}
