// The 200-resource chaos program through the real `pulumi` CLI, in both faces, while the emulator fails a seeded
// share of all requests with every fault kind (503, 429 with Retry-After, a reset before or after processing,
// latency): `pulumi up` converges in at most three runs, the account then holds exactly what the state records, once
// each, nothing pending; `pulumi destroy` under the same faults empties it in at most three runs.
// For the measurements of the reliability figures: CHAOS_PERCENTS (default 20,50), CHAOS_SEEDS (default 1),
// CHAOS_FACES (default dynamic,native) and CHAOS_GROUPS (default 10: 200 resources).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "pulumi-audience/emulator";
import { emulatorUnderTest } from "../engine/emulator-control.ts";
import { agreement, liveChaos } from "../engine/chaos-world.ts";
import { chaosStack, recorded, type Face } from "./chaos-stacks.ts";
import { pulumiCli, skipReason, type PulumiStack, type Run } from "./cli.ts";

const list = (name: string, fallback: string) => (process.env[name] ?? fallback).split(",").map((s) => s.trim()).filter(Boolean);
const GROUPS = Number(process.env["CHAOS_GROUPS"] ?? "10");
const PERCENTS = list("CHAOS_PERCENTS", "20,50").map(Number);
const SEEDS = list("CHAOS_SEEDS", "1").map(Number);
const FACES = list("CHAOS_FACES", "dynamic,native") as Face[];
const PASSWORD = "pulumi-chaos-warehouse-password";
const MAX_RUNS = 3;
const RULES = [{ status: 503 }, { status: 429, retry_after: 0.05 }, { reset: "before" }, { reset: "after" }, { latency_ms: 25 }];

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator({ builds: { default: "immediate" }, world: { size: 2000 } });
});
afterAll(() => emulator?.close());
const { control } = emulatorUnderTest(() => emulator);

/** The first error lines of a failed run, for the figures: what made it fail. */
function failure(run: Run): string {
  const lines = run.output.split("\n").filter((l) => /error:/i.test(l)).map((l) => l.trim());
  return [...new Set(lines)].slice(0, 3).join(" | ").slice(0, 600);
}

const cases = FACES.flatMap((face) => PERCENTS.flatMap((percent) => SEEDS.map((seed) => ({ face, percent, seed }))));
describe.each(cases)(`pulumi up and destroy, $face face, under $percent% faults, seed $seed${skipReason()}`, { timeout: 1_200_000 }, ({ face, percent, seed }) => {
  // Five rules drawn one after another, each at p: 1 - (1 - p)^5 of requests get one.
  const probability = 1 - (1 - percent / 100) ** (1 / RULES.length);
  const base = 20261128 + seed * 7919 + percent;

  /** Runs `pulumi <operation>` under faults until it succeeds, at most MAX_RUNS times. */
  async function untilDone(stack: PulumiStack, operation: "up" | "destroy", seed: number): Promise<{ runs: number; last: Run; injected: number; failures: string[] }> {
    let last!: Run;
    let injected = 0;
    const failures: string[] = [];
    for (let runs = 1; runs <= MAX_RUNS; runs++) {
      await control("PUT", "/faults", { seed: seed + runs, rules: RULES.map((rule) => ({ path: "/**", probability, ...rule })) });
      try {
        last = await stack.pulumi([operation, "--yes", "--skip-preview"], { timeoutMs: 900_000 });
        const { rules } = (await control("GET", "/faults")) as { rules: { applied: number }[] };
        injected += rules.reduce((n, r) => n + r.applied, 0);
      } finally {
        await control("DELETE", "/faults");
      }
      if (last.code === 0) return { runs, last, injected, failures };
      failures.push(failure(last));
    }
    return { runs: MAX_RUNS + 1, last, injected, failures };
  }

  it.skipIf(!pulumiCli().dir)(`${GROUPS * 20} resources: up converges with the account exactly as recorded, destroy leaves nothing`, async () => {
    const { api_key: apiKey } = (await control("POST", "/accounts", { name: `pulumi-chaos-${face}-${percent}-${seed}`, forecasts: true })) as { api_key: string };
    const stack = await chaosStack(emulator, { apiKey, groups: GROUPS, password: PASSWORD, face, stack: `chaos${percent}s${seed}` });

    const up = await untilDone(stack, "up", base);
    const state = await recorded(stack);
    const afterUp = agreement(await liveChaos(emulator, apiKey), state.ids);

    const destroy = await untilDone(stack, "destroy", base + 1000);
    const left = (await liveChaos(emulator, apiKey)).length;
    const runs = (r: { runs: number }) => (r.runs > MAX_RUNS ? `more than ${MAX_RUNS}` : String(r.runs));
    console.info(`pulumi chaos, ${face} face, ${percent}% (seed ${seed}, ${GROUPS * 20} resources): up converged in ${runs(up)} runs (${up.injected} faults), `
      + `destroy in ${runs(destroy)} (${destroy.injected} faults); after up ${afterUp.live} live, ${afterUp.duplicates} duplicates, ${afterUp.orphans} orphans, `
      + `${afterUp.notLive} recorded but not live, ${state.pending} pending; after destroy ${left} left`
      + [...up.failures.map((f) => `\n  failed up: ${f}`), ...destroy.failures.map((f) => `\n  failed destroy: ${f}`)].join(""));

    expect(up.runs, up.last.output.slice(-4000)).toBeLessThanOrEqual(MAX_RUNS);
    expect({ ...afterUp, pending: state.pending }).toEqual({ live: GROUPS * 20, duplicates: 0, orphans: 0, notLive: 0, pending: 0 });
    expect(destroy.runs, destroy.last.output.slice(-4000)).toBeLessThanOrEqual(MAX_RUNS);
    expect(left).toBe(0);
  });
});
