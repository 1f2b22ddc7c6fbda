// Provider rows: the first answer of a fresh dynamic-provider host, as every run of the Pulumi CLI starts one; each
// lifecycle operation through the real dynamic-provider host, against a bare dynamic provider making the same undici
// call through the same host, and through the plugin (the native face's provider), against a bare plugin making the
// same call, each driven over gRPC as the Pulumi engine drives it; and the service requests each operation sends.
import { join } from "node:path";
import { emulatorControl } from "pulumi-audience/emulator";
import { PluginHost } from "../provider/engine/plugin-host.ts";
import { DynamicProviderHost, type ProviderHost } from "../provider/engine/provider-host.ts";
import type { PropertyMap } from "../provider/protocol/values.ts";
import { providerModule } from "../provider/runtime/resources/shim.ts";
import { atMost, median, ROOT, startChild, type Bench, type Row } from "./measure.ts";
import type { EmulatorReady } from "./service.ts";

// The baseline provider: one undici call per operation, nothing else. `require` is the host's; only the undici parts
// a request needs are loaded, as the client loads them (bench/lean-undici.ts says why).
const BARE_PROVIDER = `exports.handler = () => {
  const Pool = require("undici/lib/dispatcher/pool.js");
  const request = require("undici/lib/api/api-request.js");
  const base = new URL(process.env.AUDIENCE_BASE_URL);
  const pool = new Pool(base.origin);
  const headers = { authorization: "Bearer " + process.env.AUDIENCE_API_KEY, "content-type": "application/json" };
  const call = async (method, path, body) => {
    const res = await request.call(pool, { method, path: base.pathname + path, headers, body: body === undefined ? null : JSON.stringify(body) });
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
const NATIVE_URN = "urn:pulumi:bench::bench::audience:index:Cohort::bench";
const OPS = ["create", "read", "update", "delete"] as const;
type Op = (typeof OPS)[number];

/** A provider as the bench drives it: its host, the URN of its cohorts, a cohort's inputs by name, and whether its
 * inputs go through its check first (as the engine sends them to a real provider). */
interface Driven {
  host: ProviderHost;
  urn: string;
  inputsOf: (name: string) => PropertyMap;
  checks: boolean;
}

/** One create, read, update and delete; answers each one's ms. */
async function lifecycle({ host, urn, inputsOf, checks }: Driven, i: number): Promise<Record<Op, number>> {
  const ms: Record<Op, number> = { create: 0, read: 0, update: 0, delete: 0 };
  const time = async <T>(op: Op, fn: () => Promise<T>) => {
    const t = performance.now();
    const result = await fn();
    ms[op] = performance.now() - t;
    return result;
  };
  const checked = checks ? (await host.check(urn, {}, inputsOf(`cohort ${i}`))).inputs : inputsOf(`cohort ${i}`);
  const created = await time("create", () => host.create(urn, checked));
  await time("read", () => host.read(created.id, urn, created.outputs, checked));
  const news = checks ? (await host.check(urn, checked, inputsOf(`renamed ${i}`))).inputs : inputsOf(`renamed ${i}`);
  const outs = await time("update", () => host.update(created.id, urn, created.outputs, news, checked));
  await time("delete", () => host.delete(created.id, urn, outs, news));
  return ms;
}

/** Each operation's median through `ours` against `bare`, taken in turn `rounds` times after one warm-up each. */
async function overhead(ours: Driven, bare: Driven, rounds: number, measured: (op: Op) => string, baselineWhat: string): Promise<Row[]> {
  await lifecycle(bare, -1);
  await lifecycle(ours, -2);
  const runs = { ours: [] as Record<Op, number>[], bare: [] as Record<Op, number>[] };
  for (let i = 0; i < rounds; i++) {
    runs.bare.push(await lifecycle(bare, i));
    runs.ours.push(await lifecycle(ours, i));
  }
  return OPS.map((op) => atMost({
    what: "provider overhead", measured: measured(op), unit: "ms",
    value: median(runs.ours.map((r) => r[op])), baseline: median(runs.bare.map((r) => r[op])), baselineWhat,
  }, 1.2));
}

export const provider: Bench = {
  id: "provider",
  async run({ quick }) {
    const emulator = await startChild<EmulatorReady>("service.ts", ["emulator", "0"]);
    const env = { ...process.env, AUDIENCE_BASE_URL: `${emulator.ready.url}/v1`, AUDIENCE_API_KEY: emulator.ready.apiKey, NODE_OPTIONS: "--conditions=source" };
    const { NODE_OPTIONS: _source, ...installed } = env;
    const host = await DynamicProviderHost.start({ cwd: ROOT, env, engineAddress: "127.0.0.1:1" });
    let plugin: PluginHost | undefined;
    let barePlugin: PluginHost | undefined;
    try {
      // The native face's provider: the plugin the Pulumi CLI's plugin runner loads (bin/pulumi-plugin.cjs imports
      // it), on the built package.
      plugin = await PluginHost.start({ cwd: ROOT, env: installed, launch: { name: "pulumi-resource-audience", args: [join(ROOT, "bin", "pulumi-resource-audience.js")] } });
      barePlugin = await PluginHost.start({ cwd: ROOT, env, launch: { name: "bare plugin", args: [join(import.meta.dirname, "bare-plugin.ts")] } });
      await host.configure({});
      await plugin.configure({ variables: {} });
      await barePlugin.configure({ variables: {} });
      const inputsOf = (name: string, bare: boolean): PropertyMap =>
        bare ? { name, __provider: BARE_PROVIDER } : { name, deletionMode: "delete", __provider: providerModule("cohorts") };
      const starts = await firstAnswers(installed, quick ? 3 : 7, inputsOf);
      const rounds = quick ? 25 : 150;
      const dynamic = await overhead(
        { host, urn: URN, inputsOf: (name) => inputsOf(name, false), checks: true },
        { host, urn: URN, inputsOf: (name) => inputsOf(name, true), checks: false },
        rounds, (op) => `${op} through the dynamic-provider host (median)`, "a bare dynamic provider making the same undici call through the same host",
      );
      const native = await overhead(
        { host: plugin, urn: NATIVE_URN, inputsOf: (name) => ({ name, deletionMode: "delete" }), checks: true },
        { host: barePlugin, urn: NATIVE_URN, inputsOf: (name) => ({ name }), checks: false },
        rounds, (op) => `${op} through the plugin, pulumi-resource-audience (median)`, "a bare plugin (grpc-js, Pulumi's stubs) making the same undici call",
      );
      return [starts, ...dynamic, ...native, ...(await requestsPerOperation(host, emulator.ready, inputsOf("counted", false)))];
    } finally {
      await Promise.all([host.close(), plugin?.close(), barePlugin?.close()]);
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
async function firstAnswers(installed: NodeJS.ProcessEnv, rounds: number, inputsOf: (name: string, bare: boolean) => PropertyMap): Promise<Row> {
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
  const plane = emulatorControl(emulator.url);
  const log = () => plane.requests();
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
