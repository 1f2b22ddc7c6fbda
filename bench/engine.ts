// Engine rows: first the engine's fixed cost, an `up` of a program declaring nothing against the bare program
// declaring nothing (both whole processes). Then `up`, no-op `up` and `destroy` of N independent cohorts, each run
// as users run it (bin/audience.js, a whole process, on the built package), against the same requests made with
// undici at the engine's concurrency in a process of their own (bench/requests.ts), the DELETEs also journaled as a
// crash-safe engine must make them (bench/journaled-deletes.ts), and against the floor the Pulumi
// runtime sets: the cohorts program, and
// a bare program registering N resources, each run by the language runtime against a monitor that answers at once
// (bench/program-floor.ts, its own process); and against the least any engine must do for the `up`: the cohorts
// program against a monitor that only makes each cohort's POST and answers with the created document.
// Then scale: a program registering plain cohorts (the registration a Cohort makes, without its declared outputs)
// through bin/audience.js at a small and a large size, up to 50,000: what each more resource costs, the program's
// peak memory at the largest size against the bare program's (and both with their engine or monitor), and what each
// more resource costs the same program alone. And the engine alone at a small and a large size
// (bench/engine-memory.ts): what it holds per resource and what each more resource costs.
import { spawn } from "node:child_process";
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultParallel } from "../provider/engine/index.ts";
import { emulatorControl } from "pulumi-audience/emulator";
import { Snapshot } from "../provider/engine/snapshot.ts";
import { urnName } from "../provider/engine/urn.ts";
import type { EngineMemory } from "./engine-memory.ts";
import { atMost, baselineScript, ensureBuilt, median, paired, pairedAtMost, PASSPHRASE, ROOT, startChild, type Bench, type Row } from "./measure.ts";
import { PROGRAM, writeProgram } from "./programs.ts";
import type { EmulatorReady } from "./service.ts";

/** The engine's number of operations in flight without `--parallel`, which the baselines' requests match. */
const PARALLEL = defaultParallel();
/** Rounds of the engine's runs and their baselines at each size (one in --quick). */
const ROUNDS = 5;
const FLOOR = "the cohorts program alone, its monitor answering at once with the engine's outputs";
const BARE = "a bare program registering as many resources, its monitor answering at once";
const JOURNALED = `the same DELETEs journaled as a crash-safe engine must (stack locked, state read and verified, a record as each delete begins and ends, synced in batches, the state written and synced; bench/journaled-deletes.ts)`;
const CREATING = `the cohorts program, its monitor only making each cohort's POST with undici (${PARALLEL} at a time) and answering with the created document (no state, check or diff)`;

interface Timed {
  ms: number;
  /** CPU time of the process and every process it waited for (the program, the provider hosts). */
  cpuMs: number;
  /** The most memory the process and its descendants held together (RSS, sampled every 250 ms). */
  peakMb: number;
  /** The most memory one of them held (the largest peak RSS the kernel recorded for the process or one it waited for). */
  largestMb: number;
  stdout: string;
}

/** RSS of a process and its descendants, in MB. */
function treeRssMb(root: number): number {
  const children = new Map<number, number[]>();
  const rss = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // After the command's name (which may hold spaces): state, ppid, ...; rss (pages) is the 24th field.
      const fields = readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1]!.split(" ");
      const pid = Number(entry);
      const ppid = Number(fields[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), pid]);
      rss.set(pid, (Number(fields[21]) * 4096) / 2 ** 20);
    } catch {
      // gone meanwhile
    }
  }
  let total = 0;
  for (const pending = [root]; pending.length > 0;) {
    const pid = pending.pop()!;
    total += rss.get(pid) ?? 0;
    pending.push(...(children.get(pid) ?? []));
  }
  return total;
}

/** Runs a command to its end: its wall time, CPU time, peak memory with its descendants and what it printed. */
function timed(command: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Timed> {
  const t = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn("/usr/bin/time", ["-f", "%U %S %M", command, ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    const out: Buffer[] = [];
    let err = "";
    child.stdout.on("data", (b: Buffer) => out.push(b));
    child.stderr.on("data", (b: Buffer) => (err = (err + b.toString()).slice(-4000)));
    let peakMb = 0;
    const sampler = setInterval(() => (peakMb = Math.max(peakMb, treeRssMb(child.pid!))), 250);
    child.once("error", reject);
    child.once("close", (code) => {
      clearInterval(sampler);
      const ms = performance.now() - t;
      if (code !== 0) return reject(new Error(`${args.slice(0, 4).join(" ")}: exit ${code}\n${err.slice(-2000)}`));
      const [user, system, largestKb] = err.trim().split("\n").at(-1)!.split(" ").map(Number);
      resolve({ ms, cpuMs: (user! + system!) * 1000, peakMb: Math.round(peakMb), largestMb: Math.round(largestKb! / 1024), stdout: Buffer.concat(out).toString() });
    });
  });
}

/**
 * The program run by the language runtime against bench/program-floor.ts's monitor (`answer`: its arguments after the
 * count), with what the whole process measured: the program's own time, and its own peak RSS as the largest of theirs.
 */
async function programFloor(dir: string, count: number, answer: string[] = []): Promise<Timed & { programMs: number }> {
  const script = await baselineScript(join(import.meta.dirname, "program-floor.ts"));
  const run = await timed(process.execPath, [script, dir, String(count), ...answer]);
  return { ...run, programMs: (JSON.parse(run.stdout) as { ms: number }).ms };
}

/** The program against a monitor that answers at once with `outputs` by name: what the whole process measured. */
function againstInstantMonitor(dir: string, count: number, outputs: string): Promise<Timed & { programMs: number }> {
  return programFloor(dir, count, [outputs]);
}

interface EngineRun {
  up: Timed;
  noop: Timed;
  noopRequests: number;
  refresh?: Timed;
  destroy: Timed;
  /** What the runs left for the baselines, when asked (`keep`). */
  kept?: Kept;
}

/** What a round's baselines take from the engine's runs, read and copied outside the timed processes. */
interface Kept {
  /** Each resource's outputs as the state held them before the destroy, by name, in a JSON file. */
  outputs: string;
  /** A copy of the state file as the destroy found it. */
  stateBefore: string;
}

/** `measure` against a fresh emulator, in a process of its own, stopped after. */
async function withEmulator<T>(measure: (emulator: EmulatorReady) => Promise<T>): Promise<T> {
  const emulator = await startChild<EmulatorReady>("service.ts", ["emulator", "0"]);
  try {
    return await measure(emulator.ready);
  } finally {
    await emulator.stop();
  }
}

/**
 * `up`, a no-op `up`, a refresh (if asked) and `destroy` of the program with `count` resources, each a whole process;
 * with `keep`, the state's outputs and a copy of the state before the destroy too.
 */
function engineRuns(dir: string, count: number, stateDir: string, { refresh = false, keep = false } = {}): Promise<EngineRun> {
  return withEmulator(async (emulator) => {
    const env = { AUDIENCE_BASE_URL: `${emulator.url}/v1`, AUDIENCE_API_KEY: emulator.apiKey, BENCH_COUNT: String(count), PULUMI_CONFIG_PASSPHRASE: PASSPHRASE, NODE_OPTIONS: "" };
    const stack = `n${count}`;
    const run = async (operation: "up" | "refresh" | "destroy") => {
      const r = await timed(process.execPath, [join(ROOT, "bin", "audience.js"), "run", operation, "--cwd", dir, "--stack", stack, "--state-dir", stateDir, "--yes", "--json"], env);
      const result = JSON.parse(r.stdout) as { ok: boolean; error?: string };
      if (!result.ok) throw new Error(`${operation} of ${count}: ${result.error}`);
      return r;
    };
    const plane = emulatorControl(emulator.url);
    const requests = async () => (await plane.requests()).length;
    const up = await run("up");
    const before = await requests();
    const noop = await run("up");
    const noopRequests = (await requests()) - before;
    const refreshed = refresh ? await run("refresh") : undefined;
    const kept = keep ? await keepForBaselines(stateDir, stack) : undefined;
    return { up, noop, noopRequests, ...(refreshed ? { refresh: refreshed } : {}), ...(kept ? { kept } : {}), destroy: await run("destroy") };
  });
}

/** The state's outputs by name in a JSON file, and a copy of the state file. */
async function keepForBaselines(stateDir: string, stack: string): Promise<Kept> {
  const state = await Snapshot.load(join(stateDir, `${stack}.json`), PASSPHRASE);
  const outputs = join(stateDir, `${stack}-outputs.json`);
  writeFileSync(outputs, JSON.stringify(Object.fromEntries(state.resources.map((r) => [urnName(r.urn), r.outputs]))));
  const stateBefore = join(stateDir, `${stack}-before-destroy.json`);
  copyFileSync(join(stateDir, `${stack}.json`), stateBefore);
  return { outputs, stateBefore };
}

/** The cohorts program against a monitor that makes each cohort's POST and answers with the created document. */
function againstCreatingMonitor(dir: string, count: number): Promise<number> {
  return withEmulator(async ({ url, apiKey }) => (await programFloor(dir, count, ["--create", url, apiKey, String(PARALLEL)])).programMs);
}

/** `node bench/requests.ts <mode>` of `count` cohorts, `PARALLEL` at a time, their ids in `ids`: a whole process. */
async function plainRequests(mode: "create" | "delete", { url, apiKey }: EmulatorReady, count: number, ids: string): Promise<Timed> {
  return timed(process.execPath, [await baselineScript(join(import.meta.dirname, "requests.ts")), mode, url, apiKey, String(count), String(PARALLEL), ids]);
}

/** The same creates, then deletes, with undici, `PARALLEL` at a time, each in a process of its own (bench/requests.ts). */
function directRuns(count: number, stateDir: string): Promise<{ create: number; remove: Timed }> {
  return withEmulator(async (emulator) => {
    const ids = join(stateDir, `direct-${count}.ids`);
    const create = await plainRequests("create", emulator, count, ids);
    return { create: create.ms, remove: await plainRequests("delete", emulator, count, ids) };
  });
}

/**
 * The same creates with undici, then their DELETEs as a crash-safe engine must make them (bench/journaled-deletes.ts):
 * the stack locked, `state` (a copy of the engine's) read and verified, a record as each delete begins and ends
 * (synced in batches), the state written and synced at the end.
 */
function journaledDeletes(count: number, stateDir: string, state: string): Promise<Timed> {
  return withEmulator(async (emulator) => {
    const ids = join(stateDir, `journaled-${count}.ids`);
    const stateFile = join(stateDir, `journaled-${count}.json`);
    copyFileSync(state, stateFile);
    await plainRequests("create", emulator, count, ids);
    return timed(process.execPath, [await baselineScript(join(import.meta.dirname, "journaled-deletes.ts")), emulator.url, emulator.apiKey, String(PARALLEL), ids, stateFile]);
  });
}

/** The engine alone at `count` resources, in a process of its own. */
async function engineAlone(count: number): Promise<EngineMemory> {
  const { stdout } = await timed(process.execPath, ["--conditions=source", "--expose-gc", join(import.meta.dirname, "engine-memory.ts"), String(count)]);
  return JSON.parse(stdout) as EngineMemory;
}

/** Runs of the scale rows' small pair, whose per-resource figure is their median. */
const SMALL_RUNS = 3;

/**
 * A stack of plain cohorts through bin/audience.js at two small and two large sizes: up, no-op up, refresh and
 * destroy complete, and each more resource costs as much at the large sizes as at the small ones (CPU time of the
 * engine and everything it starts, steadier than wall time on a shared machine; wall time in the note). The small
 * pair runs SMALL_RUNS times: what one more resource costs there is a difference of tens of ms of whole processes'
 * CPU, and its median is the baseline.
 */
async function scale(plain: string, bare: string, stateDir: string, sizes: readonly [number, number, number, number]): Promise<Row[]> {
  const [smallA, smallB, largeA, largeB] = sizes;
  const runsAt = (count: number) => engineRuns(plain, count, stateDir, { refresh: true });
  const small: [EngineRun, EngineRun][] = [];
  for (let i = 0; i < SMALL_RUNS; i++) small.push([await runsAt(smallA), await runsAt(smallB)]);
  const large = [await runsAt(largeA), await runsAt(largeB)] as const;
  const what = `engine with a program, ${largeB.toLocaleString("en-US")} plain cohorts in one stack (bin/audience.js, whole processes)`;
  const rows: Row[] = [];
  for (const op of ["up", "noop", "refresh", "destroy"] as const) {
    const perMore = ([a, b]: readonly [EngineRun, EngineRun], [from, to]: readonly [number, number], key: "cpuMs" | "ms") => (b[op]![key] - a[op]![key]) / (to - from);
    const smallCpu = small.map((pair) => perMore(pair, [smallA, smallB], "cpuMs"));
    const wall = `wall ms per more resource: ${perMore(large, [largeA, largeB], "ms").toFixed(2)} (large), ${median(small.map((pair) => perMore(pair, [smallA, smallB], "ms"))).toFixed(2)} (small); small pairs' CPU ms ${smallCpu.map((v) => v.toFixed(2)).join(", ")}`;
    rows.push(atMost({
      what, measured: `${op === "noop" ? "no-op up" : op}: CPU ms per more resource, ${largeA.toLocaleString("en-US")} to ${largeB.toLocaleString("en-US")}`, unit: "ms",
      value: perMore(large, [largeA, largeB], "cpuMs"), baseline: median(smallCpu), baselineWhat: `the same from ${smallA.toLocaleString("en-US")} to ${smallB.toLocaleString("en-US")} (median of ${SMALL_RUNS})`, note: wall,
    }, 1.2));
  }
  // What the Pulumi runtime itself holds at this size: the bare program, no engine (its monitor's process apart).
  const floor = await programFloor(bare, largeB);
  const largest = large[1];
  const peak = Math.max(largest.up.peakMb, largest.noop.peakMb, largest.refresh!.peakMb, largest.destroy.peakMb);
  const which = (["up", "noop", "refresh", "destroy"] as const).map((op) => `${op} ${largest[op]!.peakMb} MB`).join(", ");
  // The program is the largest process of the `up`: the engine holds a few KB per resource (the engine-alone rows).
  rows.push(atMost({
    what, measured: "peak RSS of the program (the largest process of the up)", unit: "MB", value: largest.up.largestMb, baseline: floor.largestMb,
    baselineWhat: `${BARE} (the program's own process)`, note: `the bare program ${Math.round(floor.programMs)} ms`,
  }, 1.2));
  // 2 GB for both together is out of reach of any engine: the bare program alone holds more.
  rows.push({
    what, measured: "peak RSS of program and engine together", unit: "MB", value: peak, baseline: floor.peakMb, baselineWhat: `${BARE} (with its monitor's process)`,
    ratio: peak / floor.peakMb, goal: "report", note: which,
  });
  // The same program alone, its monitor answering at once: what each more resource costs the runtime itself.
  const alone = async (count: number) => (await programFloor(plain, count)).cpuMs;
  const aloneSmall: number[] = [];
  for (let i = 0; i < SMALL_RUNS; i++) aloneSmall.push((await alone(smallB) - await alone(smallA)) / (smallB - smallA));
  const aloneLarge = (await alone(largeB) - await alone(largeA)) / (largeB - largeA);
  rows.push({
    what, measured: `the program alone, its monitor answering at once: CPU ms per more resource, ${largeA.toLocaleString("en-US")} to ${largeB.toLocaleString("en-US")}`, unit: "ms",
    value: aloneLarge, baseline: median(aloneSmall), baselineWhat: `the same from ${smallA.toLocaleString("en-US")} to ${smallB.toLocaleString("en-US")} (median of ${SMALL_RUNS})`,
    ratio: aloneLarge / median(aloneSmall), goal: "report", note: `small pairs ${aloneSmall.map((v) => v.toFixed(2)).join(", ")}`,
  });
  const smallUp = median(small.map(([a]) => a.up.ms));
  rows.push({ what, measured: "up (wall time), whole", unit: "ms", value: largest.up.ms, baseline: smallUp, baselineWhat: `the same at ${smallA.toLocaleString("en-US")} (median of ${SMALL_RUNS})`, ratio: largest.up.ms / smallUp, goal: "report", note: `no-op ${Math.round(largest.noop.ms)} ms, refresh ${Math.round(largest.refresh!.ms)} ms, destroy ${Math.round(largest.destroy.ms)} ms` });
  return rows;
}

/** Rounds of the fixed cost's pair. */
const FIXED_ROUNDS = 5;

/**
 * The engine's fixed cost: an `up` of the cohorts program declaring nothing (its stack alone; a whole process, as
 * users run it) against the bare program declaring nothing, run by the language runtime against a monitor answering
 * at once (bench/program-floor.ts, a whole process too), taken in turn. Wall time and CPU, medians.
 */
async function fixedCost(cohorts: string, bare: string, stateDir: string, rounds: number): Promise<Row[]> {
  const pairs: { up: Timed; bare: Timed }[] = [];
  for (let i = 0; i < rounds; i++) pairs.push({ bare: await programFloor(bare, 0), up: (await engineRuns(cohorts, 0, stateDir)).up });
  const what = "engine's fixed cost, a program declaring nothing (bin/audience.js, whole process)";
  const baselineWhat = `the bare program declaring nothing, its monitor answering at once (bench/program-floor.ts, whole process; median of ${rounds})`;
  return [
    pairedAtMost({ what, measured: "up of 0 resources (wall time)", unit: "ms", baselineWhat }, pairs.map((p) => ({ value: p.up.ms, baseline: p.bare.ms })), 1.3),
    pairedAtMost({ what, measured: "up of 0 resources (CPU)", unit: "ms", baselineWhat }, pairs.map((p) => ({ value: p.up.cpuMs, baseline: p.bare.cpuMs })), 1.3),
  ];
}

export const engine: Bench = {
  id: "engine",
  async run({ quick, scale: largest = 50_000 }) {
    ensureBuilt();
    // The scale rows' sizes: two small, and the largest with its half.
    const scaleSizes = quick ? [200, 400, 1000, 2000] as const : [1000, 2000, Math.round(largest / 2), largest] as const;
    const cohorts = writeProgram("cohorts", PROGRAM.cohorts);
    const bare = writeProgram("bare", PROGRAM.bare);
    const plain = writeProgram("plain", PROGRAM.plain);
    const stateDir = mkdtempSync(join(tmpdir(), "audience-bench-state-"));
    const rows: Row[] = [];
    try {
      rows.push(...(await fixedCost(cohorts, bare, stateDir, quick ? 1 : FIXED_ROUNDS)));
      for (const count of quick ? [200] : [500, 2000]) {
        // Each figure is the median of ROUNDS, the engine's runs and their baselines taken in turn within a round,
        // so that a change in the machine's load falls on both sides (one run each moved by a quarter between runs);
        // a goal's ratio is the median of the rounds' own.
        const rounds: { direct: Awaited<ReturnType<typeof directRuns>>; bare: number; bareWhole: number; bareCpu: number; creating: number; runs: EngineRun; journaled: Timed; program: number; programCpu: number }[] = [];
        for (let round = 0; round < (quick ? 1 : ROUNDS); round++) {
          const direct = await directRuns(count, stateDir);
          const bareRun = await programFloor(bare, count);
          const creating = await againstCreatingMonitor(cohorts, count);
          const runs = await engineRuns(cohorts, count, stateDir, { keep: true });
          const { stateBefore, outputs } = runs.kept!;
          const journaled = await journaledDeletes(count, stateDir, stateBefore);
          const instant = await againstInstantMonitor(cohorts, count, outputs);
          rounds.push({ direct, bare: bareRun.programMs, bareWhole: bareRun.ms, bareCpu: bareRun.cpuMs, creating, runs, journaled, program: instant.programMs, programCpu: instant.cpuMs });
        }
        const of = (pick: (r: (typeof rounds)[number]) => number) => median(rounds.map(pick));
        const floor = of((r) => r.bare);
        const program = of((r) => r.program);
        const [up, noop] = [of((r) => r.runs.up.ms), of((r) => r.runs.noop.ms)];
        const create = of((r) => r.direct.create);
        const what = `engine, ${count.toLocaleString("en-US")} independent cohorts (bin/audience.js, whole process, ${rounds.length === 1 ? "one run" : `median of ${rounds.length}`})`;
        const requests = `with undici, ${PARALLEL} at a time, in a process of their own (bench/requests.ts)`;
        const noopRequests = Math.max(...rounds.map((r) => r.runs.noopRequests));
        const pairs = (value: (r: (typeof rounds)[number]) => number, baseline: (r: (typeof rounds)[number]) => number) => rounds.map((r) => ({ value: value(r), baseline: baseline(r) }));
        rows.push(pairedAtMost({ what, measured: "up (wall time)", unit: "ms", baselineWhat: FLOOR }, pairs((r) => r.runs.up.ms, (r) => r.program), 1.15));
        // Both whole processes, as the fixed cost's rows and the CPU beside it: the bare program's monitor starts too.
        rows.push(pairedAtMost({ what, measured: "no-op up (wall time)", unit: "ms", baselineWhat: `${BARE} (its whole process)`, note: `${noopRequests} service requests` }, pairs((r) => r.runs.noop.ms, (r) => r.bareWhole), 1.3));
        rows.push({ what, measured: "no-op up (wall time)", unit: "ms", value: noop, baseline: floor, baselineWhat: `${BARE} (the program's time alone, from its start to its exit)`, ratio: noop / floor, goal: "report" });
        // CPU beside wall time: the whole processes' (the engine's with everything it starts; the baseline's with its monitor).
        rows.push(pairedAtMost({ what, measured: "no-op up (CPU)", unit: "ms", baselineWhat: `${BARE} (its process and the program's)` }, pairs((r) => r.runs.noop.cpuMs, (r) => r.bareCpu), 1.3));
        // The no-op's floor for any engine: the same program answered at once with what the engine recorded (the
        // runtime's cost of a cohort's answer beside the bare resource's); the no-op against it is the engine's share.
        rows.push(paired({ what, measured: `${FLOOR} (CPU, its process and the program's)`, unit: "ms", baselineWhat: `${BARE} (its process and the program's)` }, pairs((r) => r.programCpu, (r) => r.bareCpu)));
        rows.push(paired({ what, measured: "no-op up (CPU)", unit: "ms", baselineWhat: `${FLOOR} (its process and the program's)` }, pairs((r) => r.runs.noop.cpuMs, (r) => r.programCpu)));
        rows.push(pairedAtMost({ what, measured: "destroy (wall time)", unit: "ms", baselineWhat: `the same DELETEs ${requests}` }, pairs((r) => r.runs.destroy.ms, (r) => r.direct.remove.ms), 1.5));
        rows.push(pairedAtMost({ what, measured: "destroy (CPU)", unit: "ms", baselineWhat: `the same DELETEs ${requests}` }, pairs((r) => r.runs.destroy.cpuMs, (r) => r.direct.remove.cpuMs), 1.5));
        // The destroy's floor for an engine that leaves a true state after a crash: those DELETEs journaled.
        for (const [measure, pick] of [["wall time", (t: Timed) => t.ms], ["CPU", (t: Timed) => t.cpuMs]] as const) {
          rows.push(paired({ what, measured: `${JOURNALED} (${measure})`, unit: "ms", baselineWhat: `the same DELETEs ${requests}` }, pairs((r) => pick(r.journaled), (r) => pick(r.direct.remove))));
          rows.push(paired({ what, measured: `destroy (${measure})`, unit: "ms", baselineWhat: JOURNALED }, pairs((r) => pick(r.runs.destroy), (r) => pick(r.journaled))));
        }
        rows.push({ what, measured: "up (wall time)", unit: "ms", value: up, baseline: create, baselineWhat: `the same POSTs ${requests}`, ratio: up / create, goal: "report" });
        const creating = of((r) => r.creating);
        rows.push({ what, measured: "up (wall time)", unit: "ms", value: up, baseline: creating, baselineWhat: CREATING, ratio: up / creating, goal: "report" });
        rows.push({ what, measured: `${CREATING} (wall time)`, unit: "ms", value: creating, baseline: program, baselineWhat: FLOOR, ratio: creating / program, goal: "report" });
        rows.push({ what, measured: `${FLOOR} (wall time)`, unit: "ms", value: program, baseline: floor, baselineWhat: BARE, ratio: program / floor, goal: "report" });
        const peak = of((r) => r.runs.up.peakMb);
        rows.push({ what, measured: "up: peak RSS of program and engine together", unit: "MB", value: peak, baseline: peak, baselineWhat: "(itself)", ratio: 1, goal: "report" });
      }
      rows.push(...(await scale(plain, bare, stateDir, scaleSizes)));
      // The engine alone, without a program or a service: what it holds and what one more resource costs.
      const [smallA, smallB, largeA, largeB] = quick ? [500, 1000, 2500, 5000] : scaleSizes;
      const smallRuns: (readonly [EngineMemory, EngineMemory])[] = [];
      for (let i = 0; i < SMALL_RUNS; i++) smallRuns.push([await engineAlone(smallA), await engineAlone(smallB)]);
      const small = smallRuns[0]!;
      const large = [await engineAlone(largeA), await engineAlone(largeB)] as const;
      const what = `engine alone (instant provider, no program), ${largeB.toLocaleString("en-US")} resources`;
      const baselineWhat = `the same at ${smallB.toLocaleString("en-US")} resources`;
      const perResource = (m: EngineMemory) => m.heldBytes / m.count / 1000;
      rows.push({ what, measured: "heap held per resource once all are recorded", unit: "KB", value: perResource(large[1]), baseline: perResource(small[1]), baselineWhat, ratio: perResource(large[1]) / perResource(small[1]), goal: "<= 10 KB", met: perResource(large[1]) <= 10 });
      rows.push({ what, measured: "peak heap per resource (garbage included)", unit: "KB", value: large[1].peakBytes / largeB / 1000, baseline: small[1].peakBytes / smallB / 1000, baselineWhat, ratio: (large[1].peakBytes / largeB) / (small[1].peakBytes / smallB), goal: "report" });
      rows.push({ what, measured: "state file per resource", unit: "KB", value: large[1].stateBytes / largeB / 1000, baseline: small[1].stateBytes / smallB / 1000, baselineWhat, ratio: (large[1].stateBytes / largeB) / (small[1].stateBytes / smallB), goal: "report" });
      for (const op of ["up", "noop", "refresh", "destroy"] as const) {
        // The CPU each more resource costs (wall time moves with the machine's load and the disk's syncs): between
        // the two large sizes, against between the two small ones.
        const marginal = (a: EngineMemory, b: EngineMemory) => (b.cpuMs[op] - a.cpuMs[op]) / (b.count - a.count);
        const value = marginal(...large);
        const smallMarginals = smallRuns.map((pair) => marginal(...pair));
        rows.push(atMost({
          what, measured: `${op === "noop" ? "no-op up" : op}: CPU ms per more resource, ${largeA.toLocaleString("en-US")} to ${largeB.toLocaleString("en-US")}`, unit: "ms",
          value, baseline: median(smallMarginals), baselineWhat: `the same from ${smallA.toLocaleString("en-US")} to ${smallB.toLocaleString("en-US")} (median of ${SMALL_RUNS})`,
          note: `small pairs ${smallMarginals.map((v) => v.toFixed(2)).join(", ")}`,
        }, 1.2));
      }
      return rows;
    } finally {
      rmSync(stateDir, { recursive: true, force: true });
    }
  },
};
