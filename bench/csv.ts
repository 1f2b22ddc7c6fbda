// Hosted CSV row: the whole emulator over HTTP (create, build, download the signed output_url) against the same rows
// written straight to a file. Each path runs in its own process (bench/scenario.ts), so each peak memory is its own.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { Bench, Row } from "./measure.ts";

interface Scenario {
  total: number;
  peakRssMb: number;
}

async function scenario(mode: "baseline" | "service", size: number, dir: string): Promise<Scenario> {
  const { stdout } = await promisify(execFile)(process.execPath, ["--conditions=source", join(import.meta.dirname, "scenario.ts"), mode, String(size), join(dir, `${mode}.csv`)], { maxBuffer: 1 << 20 });
  return JSON.parse(stdout.trim().split("\n").at(-1) as string) as Scenario;
}

export const csv: Bench = {
  id: "csv",
  async run({ quick }) {
    const size = quick ? 100_000 : 1_000_000;
    const dir = mkdtempSync(join(tmpdir(), "audience-bench-csv-"));
    try {
      const baseline = await scenario("baseline", size, dir);
      const service = await scenario("service", size, dir);
      const what = `hosted CSV, ${size.toLocaleString("en-US")} rows`;
      const baselineWhat = "the same rows written straight to a file";
      const ratio = service.total / baseline.total;
      return [
        { what, measured: "emulator over HTTP: create, build, download (time)", unit: "ms", value: service.total, baseline: baseline.total, baselineWhat, ratio, goal: "0.95-1.05x (as before)", met: ratio >= 0.95 && ratio <= 1.05 },
        { what, measured: "peak RSS", unit: "MB", value: service.peakRssMb, baseline: baseline.peakRssMb, baselineWhat, ratio: service.peakRssMb / baseline.peakRssMb, goal: "report" },
      ] satisfies Row[];
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
