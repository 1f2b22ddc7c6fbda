// What every bench module shares: the row each one returns, statistics, timing, child processes and load.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { basename, isAbsolute, join } from "node:path";
import { createInterface } from "node:readline";
import { Pool } from "undici";
import { uniformInt } from "pure-rand/distribution/uniformInt";
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";

export const ROOT = join(import.meta.dirname, "..");

/** The passphrase of every stack a bench module makes. */
export const PASSPHRASE = "bench passphrase";

/** Added to every request where a row measures a service across a network (the drift scan, the CLI's refresh). */
export const NETWORK_LATENCY_MS = 20;

let built = false;

/**
 * Rows that run bin/audience.js or programs measure the built package (`dist/`), as users run it: the bench brings
 * it up to date first (`npm run build`: an incremental compile, next to nothing when it is current, then the
 * commands' bundles). Dates cannot tell: a build leaves an output whose text did not change with its old date.
 */
export function ensureBuilt(): void {
  if (built) return;
  execFileSync(process.execPath, [join(ROOT, "scripts", "build.ts")], { stdio: "inherit" });
  built = true;
}

/**
 * A baseline's script (a TypeScript file of bench/) as a process runs the package's own commands: JavaScript, its
 * own modules in one file (rolldown, as scripts/build.ts bundles the commands; packages load from node_modules), with
 * Node's compile cache on, as bin/audience.js has it. Type stripping alone costs a process 60-80 ms of CPU at start,
 * and a cold compile of what it loads more: neither is a baseline's work. Written in .audience/bench/baselines,
 * inside the package, where its imports resolve as from bench/; answers the path to run.
 */
export function baselineScript(source: string): Promise<string> {
  let written = baselines.get(source);
  if (!written) baselines.set(source, (written = writeBaseline(source)));
  return written;
}

/** The scripts `baselineScript` wrote in this process, by source: each is bundled once a run. */
const baselines = new Map<string, Promise<string>>();

async function writeBaseline(source: string): Promise<string> {
  const dir = join(ROOT, ".audience", "bench", "baselines");
  const name = basename(source, ".ts");
  const body = join(dir, `${name}.body.mjs`);
  // Loaded here only: bench/service.ts's servers import this module, and rolldown's native binding would add some
  // 24 MB to their RSS.
  const { rolldown } = await import("rolldown");
  const bundle = await rolldown({ input: source, platform: "node", external: (id) => !id.startsWith(".") && !isAbsolute(id), logLevel: "warn" });
  await bundle.write({ format: "esm", file: body, codeSplitting: false });
  await bundle.close();
  const entry = join(dir, `${name}.mjs`);
  // The cache is on before the script's own imports load, as bin/audience.js turns it on before the CLI's.
  writeFileSync(entry, `import module from "node:module";\nmodule.enableCompileCache?.();\nawait import(${JSON.stringify(`./${basename(body)}`)});\n`);
  return entry;
}

/** One line of the table: a figure beside its baseline of the same run. */
export interface Row {
  what: string;
  /** What was measured, e.g. "create through the host". */
  measured: string;
  value: number;
  baseline: number;
  /** What the baseline is. */
  baselineWhat: string;
  /** Unit of value and baseline: "ms", "req/s", "MB", "requests". */
  unit: string;
  /** value / baseline, whichever way is better. */
  ratio: number;
  goal: string;
  /** Whether the goal is met; undefined when the goal is only reported. */
  met?: boolean;
  note?: string;
}

export interface BenchOptions {
  quick: boolean;
  /** The largest stack of the scale rows (`--scale`); they also run at half of it, and at 1,000 and 2,000. */
  scale?: number;
  /** The cohorts of the real-CLI rows (`--pulumi-cohorts`; 1, then 500, unless said). */
  pulumiCohorts?: number;
  /** The real-CLI rows run with PULUMI_SKIP_CHECKPOINTS=true (`--pulumi-skip-checkpoints`). */
  pulumiSkipCheckpoints?: boolean;
}

/** A bench module: measures its rows with baselines of the same run. */
export interface Bench {
  id: string;
  run(options: BenchOptions): Promise<Row[]>;
}

export function median(values: number[]): number {
  return percentile(values, 50);
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

/** Runs fn n times one after another; answers the milliseconds of each. */
export async function timings(n: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    out.push(performance.now() - t);
  }
  return out;
}

/** Milliseconds of a whole Node process run with `args` to its end (its output ignored). */
export function processMs(args: string[]): number {
  const t = performance.now();
  execFileSync(process.execPath, args, { stdio: "ignore" });
  return performance.now() - t;
}

/** The 1-minute load average, sampled when told: the lowest and highest seen. */
export class LoadRange {
  readonly #samples: number[] = [];

  sample(): void {
    this.#samples.push(loadavg()[0]!);
  }

  get min(): number {
    return Math.min(...this.#samples);
  }

  get max(): number {
    return Math.max(...this.#samples);
  }
}

export async function elapsed(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

/** A row whose goal is "value / baseline at most `max`" (times: lower is better). */
export function atMost(row: Omit<Row, "ratio" | "goal" | "met">, max: number, goal = `<= ${max}x`): Row {
  const ratio = row.value / row.baseline;
  return { ...row, ratio, goal, met: ratio <= max };
}

/** A figure and its baseline measured in the same round, one run of each in turn. */
export interface Pair {
  value: number;
  baseline: number;
}

/**
 * A row of rounds, reported: value and baseline are each side's median, the ratio the median of the rounds' own
 * ratios, so that load which moves between rounds falls on both sides of each.
 */
export function paired(row: Omit<Row, "value" | "baseline" | "ratio" | "goal" | "met">, pairs: readonly Pair[]): Row {
  const ratios = pairs.map((p) => p.value / p.baseline);
  const note = `x: median of the rounds' own ratios (${ratios.map((r) => r.toFixed(2)).join(", ")})`;
  return {
    ...row, value: median(pairs.map((p) => p.value)), baseline: median(pairs.map((p) => p.baseline)), ratio: median(ratios), goal: "report",
    note: row.note ? `${row.note}; ${note}` : note,
  };
}

/** A row of rounds (`paired`) whose goal is "value / baseline at most `max`". */
export function pairedAtMost(row: Omit<Row, "value" | "baseline" | "ratio" | "goal" | "met">, pairs: readonly Pair[], max: number): Row {
  const reported = paired(row, pairs);
  return { ...reported, goal: `<= ${max}x`, met: reported.ratio <= max };
}

/** A row whose goal is "value / baseline at least `min`" (throughput: higher is better). */
export function atLeast(row: Omit<Row, "ratio" | "goal" | "met">, min: number, goal = `>= ${min}x`): Row {
  const ratio = row.value / row.baseline;
  return { ...row, ratio, goal, met: ratio >= min };
}

/** A child Node process running one of bench's scripts; its first stdout line is a JSON `ready` message. */
export interface Child<T> {
  ready: T;
  pid: number;
  /** Resident and peak resident memory of the process now, in MB (from /proc). */
  memory(): { rssMb: number; peakMb: number };
  /** CPU time (user and system) the process has spent so far, in ms (from /proc). */
  cpuMs(): number;
  stop(): Promise<void>;
}

/**
 * Starts one of bench's scripts as the package's commands run: bundled (`baselineScript`), on the built package's
 * modules, as `audience emulator` runs the emulator; without type stripping, whose compiler and stripped sources hold
 * memory the emulator as shipped does not.
 */
export async function startChild<T>(script: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Child<T>> {
  ensureBuilt();
  return startEntry<T>(await baselineScript(join(import.meta.dirname, script)), args, env);
}

/** Starts a script `baselineScript` wrote, once it prints its one JSON line: what `startChild` does after the build. */
export async function startEntry<T>(entry: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Child<T>> {
  const child: ChildProcess = spawn(process.execPath, [entry, ...args], {
    env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"],
  });
  const ready = await new Promise<T>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once("line", (line) => resolve(JSON.parse(line) as T));
    child.once("exit", (code) => reject(new Error(`${basename(entry)} exited with ${code} before it was ready`)));
  });
  return {
    ready,
    pid: child.pid!,
    memory() {
      const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
      const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? Number.NaN);
      return { rssMb: Math.round(kb("VmRSS") / 1024), peakMb: Math.round(kb("VmHWM") / 1024) };
    },
    cpuMs() {
      // utime and stime, the 14th and 15th fields, in clock ticks of 1/100 s (USER_HZ on Linux).
      const fields = readFileSync(`/proc/${child.pid}/stat`, "utf8").split(") ")[1]!.split(" ");
      return (Number(fields[11]) + Number(fields[12])) * 10;
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill();
      await exited;
    },
  };
}

export interface HttpCall {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** A file of ids, one a line: each request then asks `path` for 100 of them drawn at random, a fresh set each time. */
  randomIdsFrom?: string;
}

export interface Load {
  rps: number;
  p99: number;
  requests: number;
  /** Each request's milliseconds. */
  latencies: number[];
}

/** Several loads of the same call taken as one: requests over their summed time, p99 over every request. */
export function combined(loads: Load[]): Load {
  const latencies = loads.flatMap((l) => l.latencies);
  const requests = loads.reduce((n, l) => n + l.requests, 0);
  const seconds = loads.reduce((t, l) => t + l.requests / l.rps, 0);
  return { rps: requests / seconds, p99: percentile(latencies, 99), requests, latencies };
}

const idFiles = new Map<string, string[]>();
const draws = xoroshiro128plus(45);

/** The call's path, with its 100 random ids when it asks for them. */
export function pathOf(call: HttpCall): string {
  if (call.randomIdsFrom === undefined) return call.path;
  let ids = idFiles.get(call.randomIdsFrom);
  if (!ids) idFiles.set(call.randomIdsFrom, (ids = readFileSync(call.randomIdsFrom, "utf8").split("\n").filter(Boolean)));
  const picked = new Set<string>();
  while (picked.size < Math.min(100, ids.length)) picked.add(ids[uniformInt(draws, 0, ids.length - 1)]!);
  return `${call.path}?${[...picked].map((id) => `ids=${id}`).join("&")}`;
}

/** Sends `call` on `pool`; answers its milliseconds. */
async function timedCall(pool: Pool, call: HttpCall): Promise<number> {
  const path = pathOf(call);
  const t = performance.now();
  const res = await pool.request({ method: call.method, path, headers: call.headers ?? {}, body: call.body ?? null });
  await res.body.arrayBuffer();
  if (res.statusCode >= 300) throw new Error(`${call.method} ${call.path}: ${res.statusCode}`);
  return performance.now() - t;
}

/**
 * Sends `call` `count` times, `concurrency` at a time, and forgets the answers: a server's code runs at the speed it
 * keeps only once V8 has compiled its paths, after thousands of requests.
 */
export async function warmUp(origin: string, call: HttpCall, concurrency: number, count: number): Promise<void> {
  const pool = new Pool(origin, { connections: concurrency, pipelining: 1 });
  try {
    await inParallel(count, concurrency, () => timedCall(pool, call));
  } finally {
    await pool.close();
  }
}

/** `concurrency` callers send `call` back to back for `ms`; answers requests per second and the p99 latency. */
export async function load(origin: string, call: HttpCall, concurrency: number, ms: number): Promise<Load> {
  const pool = new Pool(origin, { connections: concurrency, pipelining: 1 });
  const latencies: number[] = [];
  const send = () => timedCall(pool, call);
  try {
    for (let i = 0; i < concurrency; i++) await send(); // warm every connection
    const started = performance.now();
    const until = started + ms;
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) latencies.push(await send());
    }));
    const took = performance.now() - started;
    return { rps: (latencies.length * 1000) / took, p99: percentile(latencies, 99), requests: latencies.length, latencies };
  } finally {
    await pool.close();
  }
}

/** Runs `count` calls with at most `concurrency` in flight; answers the wall time in ms. */
export async function inParallel(count: number, concurrency: number, fn: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const t = performance.now();
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, async () => {
    while (next < count) await fn(next++);
  }));
  return performance.now() - t;
}
