// Program floor rows: a program of N cohorts on the Pulumi runtime, of each face (`pulumi-audience` and
// `pulumi-audience/native`), against a monitor that answers at once with the outputs the engine recorded for a cohort
// of that face (one created on the emulator first), against the same N of a bare one-output resource (the Pulumi
// runtime's own floor), in time and in memory per resource (peak RSS above the same program registering nothing).
// And each face against the same registration made with `pulumi.CustomResource` (its type, inputs and provider shim
// or alias; the same answer): what the face itself costs beyond the runtime's cost of what it registers. Runs
// alternate between the programs. The programs load the built package (`dist/`), as an installed package runs, and
// preload what a scaffold's Pulumi.yaml preloads.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { defaultParallel } from "../provider/engine/index.ts";
import { runLanguageRuntime } from "../provider/engine/language.ts";
import { startMonitor, type MonitorHandler } from "../provider/engine/monitor.ts";
import { loadProject } from "../provider/engine/project.ts";
import { Snapshot } from "../provider/engine/snapshot.ts";
import type { PropertyMap } from "../provider/protocol/values.ts";
import { atMost, ensureBuilt, median, PASSPHRASE, ROOT, startChild, type Bench, type Row } from "./measure.ts";
import { PROGRAM, writeProgram } from "./programs.ts";
import type { EmulatorReady } from "./service.ts";

/** The `--parallel` a program gets, as the engine and `pulumi up` give it without the flag. */
const PARALLEL = defaultParallel();
/** Printed by each program at its exit: its peak RSS (KB) and CPU time (user and system, µs). */
const PEAK = 'process.on("exit", () => { const u = process.resourceUsage(); console.log(`bench-peak-rss ${u.maxRSS} ${u.userCPUTime + u.systemCPUTime}`); });\n';

/**
 * The outputs the engine records for a cohort of each face's program: one `up` of one cohort through bin/audience.js
 * against `service`, read from its state. A registration is answered with them and its own inputs.
 */
export async function recordedOutputs(programs: Record<"cohorts" | "native", string>, service: { url: string; apiKey: string }): Promise<Record<"cohorts" | "native", PropertyMap>> {
  const stateDir = mkdtempSync(join(tmpdir(), "floor-recorded-"));
  try {
    const env = { ...process.env, AUDIENCE_BASE_URL: `${service.url}/v1`, AUDIENCE_API_KEY: service.apiKey, BENCH_COUNT: "1", PULUMI_CONFIG_PASSPHRASE: PASSPHRASE, NODE_OPTIONS: "" };
    const recorded = async (dir: string, stack: string) => {
      await promisify(execFile)(process.execPath, [join(ROOT, "bin", "audience.js"), "run", "up", "--cwd", dir, "--stack", stack, "--state-dir", stateDir, "--yes", "--json"], { env });
      const cohort = (await Snapshot.load(join(stateDir, `${stack}.json`), PASSPHRASE)).resources.find((r) => r.type.endsWith(":Cohort"));
      if (!cohort) throw new Error(`the up of ${dir} recorded no cohort`);
      return cohort.outputs as PropertyMap;
    };
    return { cohorts: await recorded(programs.cohorts, "cohorts"), native: await recorded(programs.native, "native") };
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
}

/** Wall time, CPU time (ms) and peak RSS (KB) of one program run: the program's process alone. */
type Run = { ms: number; cpuMs: number; peakKb: number };

/**
 * Wall time, CPU and peak RSS of a program registering `count` resources with a monitor that answers at once: a
 * cohort with `cohort`'s outputs and its own inputs, anything else with its inputs.
 */
async function run(dir: string, count: number, cohort: PropertyMap): Promise<Run> {
  const handler: MonitorHandler = {
    register: async (reg) => ({
      urn: `urn:pulumi:bench::floor::${reg.type}::${reg.name}`, id: reg.custom ? reg.name : "",
      outputs: reg.type.endsWith(":Cohort") ? { ...cohort, ...reg.inputs } : reg.inputs,
    }),
    registerOutputs: async () => undefined,
    read: async () => { throw new Error("not served"); },
    invoke: async () => { throw new Error("not served"); },
    log: () => undefined,
  };
  const monitor = await startMonitor(handler);
  let peakKb = Number.NaN;
  let cpuMs = Number.NaN;
  try {
    const t = performance.now();
    const code = await runLanguageRuntime({
      project: loadProject(dir), stack: "bench", monitorAddress: monitor.address, dryRun: false, parallel: PARALLEL,
      // As the Pulumi CLI runs it: without this process's `source` condition.
      env: { ...process.env, BENCH_COUNT: String(count), NODE_OPTIONS: "" }, asCli: true,
      onOutput: (line) => {
        const peak = /^bench-peak-rss (\d+) (\d+)$/.exec(line);
        if (peak) [peakKb, cpuMs] = [Number(peak[1]), Number(peak[2]) / 1000];
      },
    });
    if (code !== 0) throw new Error(`${dir} exited with ${code}`);
    return { ms: performance.now() - t, cpuMs, peakKb };
  } finally {
    await monitor.close();
  }
}

/** The size the memory goals are judged at: at 500 a program's growth above an empty one is within the noise of
 * its peak RSS (a bare program of 500 has measured 0 to 0.11 MB per resource); they are reported there. */
const MEMORY_GOAL_SIZE = 10_000;

export const floor: Bench = {
  id: "floor",
  async run({ quick }) {
    ensureBuilt();
    const names = ["bare", "cohorts", "native", "plain", "plainNative"] as const;
    type Program = (typeof names)[number];
    const programs = Object.fromEntries(names.map((name) => [name, writeProgram(`floor-${name}`, PROGRAM[name] + PEAK)])) as Record<Program, string>;
    // The plain registrations are answered as their face's: the bare program registers no cohort.
    const emulator = await startChild<EmulatorReady>("service.ts", ["emulator", "0"]);
    const recorded = await recordedOutputs(programs, emulator.ready).finally(() => emulator.stop());
    const cohortOf: Record<Program, PropertyMap> = { bare: {}, cohorts: recorded.cohorts, plain: recorded.cohorts, native: recorded.native, plainNative: recorded.native };
    /** Rounds at each size: medians of two moved a ratio by a fifth and more between runs on this shared machine. */
    const roundsAt = (count: number) => (quick || count >= 10_000 ? 3 : 5);
    const rows: Row[] = [];
    /** Each of `which` run `times` at `count`, alternated (a change in the machine's load falls on all): medians. */
    const alternated = async (which: readonly Program[], count: number, times: number) => {
      const runs = Object.fromEntries(which.map((name) => [name, [] as Run[]])) as Record<Program, Run[]>;
      for (let round = 0; round < times; round++) {
        for (const name of which) runs[name].push(await run(programs[name], count, cohortOf[name]));
      }
      const of = (pick: (run: Run) => number) => (name: Program) => median(runs[name].map(pick));
      return { ms: of((r) => r.ms), cpuMs: of((r) => r.cpuMs), peakKb: of((r) => r.peakKb) };
    };
    // Each program registering nothing: what importing the face costs a program's start, and the base its memory per
    // resource is measured above (the plain registrations import what the bare program does). Half a second each:
    // more rounds than the programs that register.
    const emptyRounds = 5;
    const empty = await alternated(["bare", "cohorts", "native"], 0, emptyRounds);
    const emptyKb = (name: Program) => empty.peakKb(name === "plain" || name === "plainNative" ? "bare" : name);
    for (const [name, face] of [["cohorts", "pulumi-audience"], ["native", "pulumi-audience/native"]] as const) {
      rows.push({
        what: `program start, importing ${face}`, measured: "a program declaring nothing (wall time)", unit: "ms", value: empty.ms(name),
        baseline: empty.ms("bare"), baselineWhat: `the same program importing @pulumi/pulumi alone (median of ${emptyRounds})`, ratio: empty.ms(name) / empty.ms("bare"), goal: "report",
      });
    }
    for (const count of quick ? [500] : [500, MEMORY_GOAL_SIZE]) {
      const rounds = roundsAt(count);
      const { ms, cpuMs, peakKb } = await alternated(names, count, rounds);
      const perResource = (name: Program) => (peakKb(name) - emptyKb(name)) / 1024 / count;
      const baselineWhat = `the same number of a bare one-output resource (median of ${rounds})`;
      for (const [name, plain, face, registration] of [
        ["cohorts", "plain", "cohorts", "its type, inputs and provider shim"],
        ["native", "plainNative", "native cohorts (pulumi-audience/native)", "its type, inputs, version and alias"],
      ] as const) {
        const what = `program floor, ${count.toLocaleString("en-US")} ${face}`;
        rows.push(atMost({ what, measured: "program against a monitor answering at once (wall time)", unit: "ms", value: ms(name), baseline: ms("bare"), baselineWhat }, 1.1));
        rows.push(atMost({ what, measured: "program against a monitor answering at once (CPU of the program's process)", unit: "ms", value: cpuMs(name), baseline: cpuMs("bare"), baselineWhat }, 1.1));
        const memoryJudged = count >= MEMORY_GOAL_SIZE;
        const memory = { what, measured: "peak RSS per resource, above an empty program", unit: "MB", value: perResource(name), baseline: perResource("bare"), baselineWhat };
        rows.push(memoryJudged ? atMost(memory, 1.2) : { ...memory, ratio: memory.value / memory.baseline, goal: "report" });
        const perCohort = perResource(name);
        rows.push({ what, measured: "peak RSS per cohort (goal: at most 0.06 MB)", unit: "MB", value: perCohort, baseline: 0.06, baselineWhat: "the goal", ratio: perCohort / 0.06, ...(memoryJudged ? { goal: "<= 1x", met: perCohort <= 0.06 } : { goal: "report" }) });
        // The face itself: against what the runtime costs for the same registration made without it.
        const plainWhat = `the same registration made with pulumi.CustomResource (${registration}; the same answer; median of ${rounds})`;
        rows.push({ what, measured: "program against a monitor answering at once (wall time)", unit: "ms", value: ms(name), baseline: ms(plain), baselineWhat: plainWhat, ratio: ms(name) / ms(plain), goal: "report" });
        rows.push({ what, measured: "peak RSS per resource, above an empty program", unit: "MB", value: perResource(name), baseline: perResource(plain), baselineWhat: plainWhat, ratio: perResource(name) / perResource(plain), goal: "report" });
      }
    }
    return rows;
  },
};
