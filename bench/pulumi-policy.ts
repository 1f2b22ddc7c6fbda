// The policy pack's cost as a reviewer meets it: `pulumi preview` of the adaptive-discounting example (dynamic face,
// the installed package) with `--policy-pack` (through scripts/policy-launcher.ts, which older Node.js hosts
// need) against the same preview without it, alternated, in one stack against one emulator. Both
// previews must pass: the pack's config allows the example's identified hosted-CSV delivery.
import { readFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { writePolicyLauncher } from "../scripts/policy-launcher.ts";
import { median, ROOT, startChild, type Bench, type Row } from "./measure.ts";
import { installedModules, program, pulumiDir, pulumiEnv, timed, type Timed } from "./pulumi-cli.ts";
import { account } from "./pulumi-languages.ts";
import type { EmulatorReady } from "./service.ts";

const ROUNDS = 5;

export const pulumiPolicyBench: Bench = {
  id: "policy",
  async run({ quick }) {
    const rounds = quick ? 1 : ROUNDS;
    const cli = pulumiDir();
    const work = mkdtempSync(join(tmpdir(), "audience-bench-policy-"));
    const emulator = await startChild<EmulatorReady>("service.ts", ["emulator", "0"]);
    try {
      const modules = installedModules(work);
      const dir = program(work, "adaptive-discounting", readFileSync(join(ROOT, "examples", "adaptive-discounting", "index.ts"), "utf8"), modules);
      const config = join(dir, "policy-config.json");
      writeFileSync(config, JSON.stringify({ "audience-identified-delivery-allowed-destinations": { allowedDestinations: ["hosted_csv"] } }));
      const pack = ["--policy-pack", writePolicyLauncher(dir), "--policy-pack-config", config];
      const env: NodeJS.ProcessEnv = {
        ...pulumiEnv({ cli, home: join(work, "home"), backend: work }),
        AUDIENCE_BASE_URL: `${emulator.ready.url}/v1`,
        // An account holding the example's Leads cohort and Forecasted spend forecast.
        AUDIENCE_API_KEY: await account(emulator.ready, "policy"),
      };
      const pulumi = (args: string[]) => timed(join(cli, "pulumi"), [...args, "--non-interactive"], dir, env);
      await pulumi(["stack", "select", "--create", "--stack", "policy"]);
      const runs: { with: Timed[]; without: Timed[] } = { with: [], without: [] };
      const loads: number[] = [];
      for (let round = 0; round < rounds; round++) {
        loads.push(loadavg()[0]!);
        // Alternated, the first of each pair switching, so neither always runs on the warmer machine.
        const order = round % 2 === 0 ? (["without", "with"] as const) : (["with", "without"] as const);
        for (const which of order) runs[which].push(await pulumi(["preview", ...(which === "with" ? pack : [])]));
      }
      const note = `load ${Math.min(...loads).toFixed(0)}-${Math.max(...loads).toFixed(0)}, median of ${rounds} alternated pairs`;
      return (["ms", "cpuMs"] as const).map((key): Row => {
        const value = median(runs.with.map((t) => t[key]));
        const baseline = median(runs.without.map((t) => t[key]));
        return {
          what: `pulumi preview, adaptive discounting (${key === "ms" ? "wall" : "CPU"})`, measured: "with the policy pack (7 rules)",
          value, baseline, baselineWhat: "the same preview without the pack", unit: "ms", ratio: value / baseline, goal: "report", note,
        };
      });
    } finally {
      await emulator.stop();
      rmSync(work, { recursive: true, force: true });
    }
  },
};
