// CLI rows: `audience --help` as users start it (bin/audience.js, on the built package), and the provider plugin as
// the Pulumi CLI starts it for every command (bin/pulumi-resource-audience.js, until it prints its port), against
// `node -e 0`, each the median of several cold starts, taken in turn.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { ensureBuilt, median, processMs, ROOT, type Bench } from "./measure.ts";

/** Milliseconds from starting the plugin to the port on its first line of stdout (then it is stopped). */
function pluginStart(): Promise<number> {
  const t = performance.now();
  const child = spawn(process.execPath, [join(ROOT, "bin", "pulumi-resource-audience.js")], { stdio: ["ignore", "pipe", "ignore"] });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`the plugin exited (${code}) before printing its port`)));
    child.stdout.once("data", () => {
      const ms = performance.now() - t;
      child.removeAllListeners("exit");
      child.once("exit", () => resolve(ms));
      child.kill();
    });
  });
}

export const cli: Bench = {
  id: "cli",
  async run({ quick }) {
    ensureBuilt();
    const runs = quick ? 3 : 7;
    const bare: number[] = [];
    const help: number[] = [];
    const plugin: number[] = [];
    for (let i = 0; i < runs; i++) {
      bare.push(processMs(["-e", "0"]));
      help.push(processMs([join(ROOT, "bin", "audience.js"), "--help"]));
      plugin.push(await pluginStart());
    }
    const baseline = median(bare);
    const value = median(help);
    const port = median(plugin);
    return [
      { what: "CLI start", measured: "audience --help (bin/audience.js)", unit: "ms", value, baseline, baselineWhat: "node -e 0", ratio: value / baseline, goal: "report (< 300 ms)", met: value < 300 },
      { what: "plugin start", measured: "pulumi-resource-audience until it prints its port (bin/pulumi-resource-audience.js)", unit: "ms", value: port, baseline, baselineWhat: "node -e 0", ratio: port / baseline, goal: "report" },
    ];
  },
};
