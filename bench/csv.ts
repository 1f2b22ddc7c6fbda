// Hosted CSV rows: the outputs engine (table + streamed CSV) and the whole emulator over HTTP (create, build, download
// the signed output_url) against the same rows written straight to a file. Each path runs in its own process
// (bench/scenario.ts), so each peak memory is its own; the engine and the straight write take turns, three rounds.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { median, type Bench, type Row } from "./measure.ts";

interface Scenario {
  total: number;
  /** CPU time of the process: what the machine's load moves least. */
  cpuMs: number;
  peakRssMb: number;
}

/** Runs of each compared path. */
const ROUNDS = 3;

function medians(runs: Scenario[]): Scenario {
  return { total: median(runs.map((r) => r.total)), cpuMs: median(runs.map((r) => r.cpuMs)), peakRssMb: median(runs.map((r) => r.peakRssMb)) };
}

async function scenario(mode: "baseline" | "engine" | "service", size: number, dir: string): Promise<Scenario> {
  const { stdout } = await promisify(execFile)(process.execPath, ["--conditions=source", join(import.meta.dirname, "scenario.ts"), mode, String(size), join(dir, `${mode}.csv`)], { maxBuffer: 1 << 20 });
  return JSON.parse(stdout.trim().split("\n").at(-1) as string) as Scenario;
}

export const csv: Bench = {
  id: "csv",
  async run({ quick }) {
    const size = quick ? 100_000 : 1_000_000;
    const dir = mkdtempSync(join(tmpdir(), "audience-bench-csv-"));
    try {
      // The two paths take turns, ROUNDS times; each figure is the median of its rounds, so a burst of load on a
      // shared machine moves one round, not the ratio.
      const baselines: Scenario[] = [];
      const engines: Scenario[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        baselines.push(await scenario("baseline", size, dir));
        engines.push(await scenario("engine", size, dir));
      }
      const baseline = medians(baselines);
      const engine = medians(engines);
      const service = await scenario("service", size, dir);
      const what = `hosted CSV, ${size.toLocaleString("en-US")} rows`;
      const baselineWhat = "the same rows written straight to a file";
      const row = (measured: string, value: number, base: number, unit: string, goal: string, max?: number): Row =>
        ({ what, measured, unit, value, baseline: base, baselineWhat, ratio: value / base, goal, ...(max === undefined ? {} : { met: value / base <= max }) });
      return [
        row(`outputs engine: table + streamed CSV (time, median of ${ROUNDS} rounds)`, engine.total, baseline.total, "ms", "<= 1.05x (as before)", 1.05),
        row(`outputs engine: CPU time (median of ${ROUNDS} rounds)`, engine.cpuMs, baseline.cpuMs, "ms", "report"),
        row(`outputs engine: peak RSS (median of ${ROUNDS} rounds)`, engine.peakRssMb, baseline.peakRssMb, "MB", "<= 1.05x (as before)", 1.05),
        row("emulator over HTTP: create, build, download (time)", service.total, baseline.total, "ms", "report"),
        row("emulator over HTTP: peak RSS", service.peakRssMb, baseline.peakRssMb, "MB", "report"),
      ];
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
