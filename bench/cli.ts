// CLI row: `audience --help` as users start it (bin/audience.js, on the built package) against `node -e 0`, each the
// median of several cold starts, taken in turn.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { ensureBuilt, median, ROOT, type Bench } from "./measure.ts";

function once(args: string[]): number {
  const t = performance.now();
  execFileSync(process.execPath, args, { stdio: "ignore" });
  return performance.now() - t;
}

export const cli: Bench = {
  id: "cli",
  async run({ quick }) {
    ensureBuilt();
    const runs = quick ? 3 : 7;
    const bare: number[] = [];
    const help: number[] = [];
    for (let i = 0; i < runs; i++) {
      bare.push(once(["-e", "0"]));
      help.push(once([join(ROOT, "bin", "audience.js"), "--help"]));
    }
    const baseline = median(bare);
    const value = median(help);
    return [{ what: "CLI start", measured: "audience --help (bin/audience.js)", unit: "ms", value, baseline, baselineWhat: "node -e 0", ratio: value / baseline, goal: "report (< 300 ms)", met: value < 300 }];
  },
};
