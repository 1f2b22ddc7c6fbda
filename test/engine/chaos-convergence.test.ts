// Convergence under heavy faults: the chaos program (20 resources a group) runs through the local engine in native
// and dynamic mode while the emulator fails a seeded share of all requests (503, 429 with Retry-After, a reset before
// or after processing, latency). `up` converges in at most three runs, the account then holding exactly what the
// state records, once each; `destroy` empties it in at most three. For the reliability figures: CHAOS_PERCENTS
// (default 50), CHAOS_SEEDS (default 1) and CHAOS_GROUPS (default 10: 200 resources).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Operation, RunResult } from "../../provider/engine/index.ts";
import { agreement, CHAOS_PROGRAM, liveChaos, recordedIds, type ExportedResource } from "./chaos-world.ts";
import { nativePrograms } from "./native-programs.ts";

const world = nativePrograms({ port: 0, builds: { default: "immediate" }, world: { size: 2000 } });
const list = (name: string, fallback: string) => (process.env[name] ?? fallback).split(",").map((s) => s.trim()).filter(Boolean).map(Number);
const PERCENTS = list("CHAOS_PERCENTS", "50");
const SEEDS = list("CHAOS_SEEDS", "1");
const GROUPS = Number(process.env["CHAOS_GROUPS"] ?? "10");
const MAX_RUNS = 3;
const PASSWORD = "convergence-warehouse-password";
const RULES = [{ status: 503 }, { status: 429, retry_after: 0.05 }, { reset: "before" }, { reset: "after" }, { latency_ms: 25 }];

const source = readFileSync(join(CHAOS_PROGRAM, "index.ts"), "utf8");

const MODES = [["native", "pulumi-audience/native"], ["dynamic", "pulumi-audience"]] as const;
const cases = MODES.flatMap(([mode, module]) => PERCENTS.flatMap((percent) => SEEDS.map((seed) => ({ mode, module, percent, seed }))));
describe.each(cases)("in $mode mode, under $percent% faults, seed $seed", ({ mode, module, percent, seed }) => {
  // Five rules drawn one after another: each at p, so that 1 - (1 - p)^5 of requests get one.
  const probability = 1 - (1 - percent / 100) ** (1 / RULES.length);
  const SEED = 20261124 + seed * 7919 + percent;
  it(`up converges to the account exactly and destroy empties it (${GROUPS * 20} resources)`, { timeout: 3_600_000 }, async () => {
    const { apiKey } = await world.account(`chaos-${mode}-${percent}-${seed}`);
    const dir = world.program(`chaos-${mode}-${percent}-${seed}`, { index: source.replace(/from "pulumi-audience"/, `from "${module}"`) });
    const extra = { config: { groups: String(GROUPS) }, secrets: { warehousePassword: PASSWORD } };

    /** Runs the operation under faults until it succeeds; answers how many runs it took. */
    async function untilDone(operation: Operation, seed: number): Promise<{ runs: number; last: RunResult }> {
      let last!: RunResult;
      for (let runs = 1; runs <= MAX_RUNS; runs++) {
        await world.control("PUT", "/faults", { seed: seed + runs, rules: RULES.map((rule) => ({ path: "/**", probability, ...rule })) });
        try {
          last = await world.run(dir, apiKey, operation, extra);
        } finally {
          await world.control("DELETE", "/faults");
        }
        if (last.ok) return { runs, last };
      }
      return { runs: MAX_RUNS + 1, last };
    }

    const up = await untilDone("up", SEED);
    const state = JSON.parse(readFileSync(up.last.statePath, "utf8")) as { deployment: { resources: ExportedResource[]; pending_operations?: unknown[] } };
    const afterUp = agreement(await liveChaos(world.emulator, apiKey), recordedIds(state.deployment.resources));

    const destroy = await untilDone("destroy", SEED + 1000);
    const left = (await liveChaos(world.emulator, apiKey)).length;
    console.info(`chaos ${mode} at ${percent}% (seed ${seed}, ${GROUPS * 20} resources): up converged in ${up.runs} runs, destroy in ${destroy.runs}; `
      + `after up ${afterUp.live} live, ${afterUp.duplicates} duplicates, ${afterUp.orphans} orphans, ${afterUp.notLive} not live; after destroy ${left} left`);

    expect(up.runs, up.last.error).toBeLessThanOrEqual(MAX_RUNS);
    expect(state.deployment.pending_operations ?? []).toEqual([]);
    expect(afterUp).toEqual({ live: GROUPS * 20, duplicates: 0, orphans: 0, notLive: 0 });
    expect(destroy.runs, destroy.last.error).toBeLessThanOrEqual(MAX_RUNS);
    expect(left).toBe(0);
  });
});
