// The machine a bench run measured on, as its figures need reading: how busy it was (the load average through the
// run; on Linux the share of CPU time spent working, and the share the hypervisor gave to other machines: steal)
// and how fast it was (a bare Node start and a fixed loop, at the start of the run and at its end). Figures of two
// runs compare only on like machines; their ratios are what the goals judge.
import { readFileSync } from "node:fs";
import { cpus } from "node:os";
import { LoadRange, median, processMs } from "./measure.ts";

/** CPU time of all cores since boot, in the kernel's ticks (the `cpu` line of /proc/stat). */
export interface CpuTimes {
  total: number;
  /** Idle and waiting on the disk. */
  idle: number;
  /** Time the hypervisor ran other machines while this one had work. */
  steal: number;
}

/** The `cpu` line of /proc/stat's text (user nice system idle iowait irq softirq steal ...); undefined without one. */
export function parseProcStat(text: string): CpuTimes | undefined {
  const line = text.split("\n").find((l) => l.startsWith("cpu "));
  const ticks = line?.trim().split(/\s+/).slice(1, 9).map(Number);
  if (!ticks || ticks.length < 8 || ticks.some((t) => !Number.isFinite(t))) return undefined;
  // guest and guest_nice (after steal) are already counted in user and nice.
  const [user, nice, system, idle, iowait, irq, softirq, steal] = ticks as [number, number, number, number, number, number, number, number];
  return { total: user + nice + system + idle + iowait + irq + softirq + steal, idle: idle + iowait, steal };
}

function cpuTimes(): CpuTimes | undefined {
  try {
    return parseProcStat(readFileSync("/proc/stat", "utf8"));
  } catch {
    return undefined; // not Linux
  }
}

/**
 * How fast the machine is right now, medians of a few rounds: a bare Node process started from this one and waited
 * for (`node -e 0`, spawn included), and a fixed loop in this process.
 */
export interface Speed {
  nodeStartMs: number;
  loopMs: number;
}

/** Iterations of the fixed loop: the same work in every run, so that its time tells one machine from another. */
const LOOP = 50_000_000;

export function speed(rounds = 5): Speed {
  const starts: number[] = [];
  const loops: number[] = [];
  for (let i = 0; i < rounds; i++) {
    starts.push(processMs(["-e", "0"]));
    const t = performance.now();
    let sum = 0;
    for (let n = 0; n < LOOP; n++) sum += n & 1;
    // The sum is read, so that no compiler may drop the loop.
    if (sum !== LOOP / 2) throw new Error(`speed loop: summed ${sum}`);
    loops.push(performance.now() - t);
  }
  return { nodeStartMs: median(starts), loopMs: median(loops) };
}

/** What a run's figures were measured on. */
export interface MachineRecord {
  cpus: number;
  model: string;
  /** The 1-minute load average, lowest and highest of the samples taken through the run. */
  load: { min: number; max: number };
  /** Shares (0-1) of the CPU time through the run, all cores together: working, and stolen (apart). Linux only. */
  busy?: number;
  steal?: number;
  atStart: Speed;
  atEnd: Speed;
}

/**
 * Samples the load through a run (every `everyMs`), from `startMachineWatch()` to its `stop()`; the speed is taken
 * at both ends (`rounds` each).
 */
export function startMachineWatch({ everyMs = 10_000, rounds = 5 } = {}): { stop(): MachineRecord } {
  const atStart = speed(rounds);
  const before = cpuTimes();
  const loads = new LoadRange();
  loads.sample();
  const timer = setInterval(() => loads.sample(), everyMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      loads.sample();
      const after = cpuTimes();
      const spent = before && after ? after.total - before.total : 0;
      let shares = {};
      if (before && after && spent > 0) {
        const stolen = after.steal - before.steal;
        shares = { busy: (spent - (after.idle - before.idle) - stolen) / spent, steal: stolen / spent };
      }
      const cores = cpus();
      return { cpus: cores.length, model: cores[0]?.model.trim() ?? "unknown", load: { min: loads.min, max: loads.max }, ...shares, atStart, atEnd: speed(rounds) };
    },
  };
}

/** One line for the end of the table. */
export function describeMachine(m: MachineRecord): string {
  const pct = (share: number) => `${Math.round(share * 100)}%`;
  const shares = m.busy === undefined ? "" : `, CPU busy ${pct(m.busy)} and stolen ${pct(m.steal ?? 0)} of the time`;
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  return `machine: ${m.cpus} CPUs (${m.model}), load average ${m.load.min.toFixed(1)}-${m.load.max.toFixed(1)}${shares}; `
    + `\`node -e 0\` ${ms(m.atStart.nodeStartMs)} at the start and ${ms(m.atEnd.nodeStartMs)} at the end, `
    + `the speed loop ${ms(m.atStart.loopMs)} and ${ms(m.atEnd.loopMs)}`;
}
