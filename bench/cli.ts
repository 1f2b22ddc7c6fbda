// CLI row: `audience --help` against `node -e 0`, each the median of several cold starts.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { median, ROOT, type Bench } from "./measure.ts";

function start(args: string[], runs: number): number {
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    execFileSync(process.execPath, args, { stdio: "ignore" });
    ms.push(performance.now() - t);
  }
  return median(ms);
}

export const cli: Bench = {
  id: "cli",
  async run({ quick }) {
    const runs = quick ? 3 : 7;
    const baseline = start(["-e", "0"], runs);
    const value = start(["--conditions=source", join(ROOT, "provider", "cli", "main.ts"), "--help"], runs);
    return [{ what: "CLI start", measured: "audience --help", unit: "ms", value, baseline, baselineWhat: "node -e 0", ratio: value / baseline, goal: "report (< 300 ms)", met: value < 300 }];
  },
};
