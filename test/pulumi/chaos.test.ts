// The 200-resource chaos program through the real `pulumi` CLI (dynamic face) while the emulator fails a seeded
// share of all requests with every fault kind (503, 429 with Retry-After, a reset before or after processing,
// latency): `pulumi up` converges (in at most three runs at 20%; at 50% a run fails whenever one of its steps meets a
// fault in every attempt, and it has taken four), the account then holds exactly what the state records, once
// each, nothing pending; `pulumi destroy` under the same faults empties it (in at most three runs at 20%; at 50% a
// last run without faults finishes it: Pulumi starts no step after the first failure, and a delete fails when all
// four of the client's attempts meet a fault).
// CHAOS_GROUPS (default 10: 200 resources) sets the size for measurements.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "pulumi-audience/emulator";
import { emulatorControl } from "../engine/emulator-control.ts";
import { chaosStack, liveChaos, recorded } from "./chaos-stacks.ts";
import { pulumiCli, skipReason, type PulumiStack, type Run } from "./cli.ts";

const GROUPS = Number(process.env["CHAOS_GROUPS"] ?? "10");
const PASSWORD = "pulumi-chaos-warehouse-password";
const SEED = 20261128;
const MAX_RUNS = 3;
/** At 50% faults: runs an `up` may take before the test calls it stuck. */
const STUCK_AFTER_RUNS = 8;
const RULES = [{ status: 503 }, { status: 429, retry_after: 0.05 }, { reset: "before" }, { reset: "after" }, { latency_ms: 25 }];

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator({ builds: { default: "immediate" }, world: { size: 2000 } });
});
afterAll(() => emulator?.close());
const { control } = emulatorControl(() => emulator);

describe.each([{ percent: 20 }, { percent: 50 }])(`pulumi up and destroy under $percent% faults${skipReason()}`, { timeout: 1_200_000 }, ({ percent }) => {
  // Five rules drawn one after another, each at p: 1 - (1 - p)^5 of requests get one.
  const probability = 1 - (1 - percent / 100) ** (1 / RULES.length);

  /** Runs `pulumi <operation>` under faults until it succeeds, at most `limit` times. */
  async function untilDone(stack: PulumiStack, operation: "up" | "destroy", seed: number, limit = MAX_RUNS): Promise<{ runs: number; last: Run; injected: number }> {
    let last!: Run;
    let injected = 0;
    for (let runs = 1; runs <= limit; runs++) {
      await control("PUT", "/faults", { seed: seed + runs, rules: RULES.map((rule) => ({ path: "/**", probability, ...rule })) });
      try {
        last = await stack.pulumi([operation, "--yes", "--skip-preview"], { timeoutMs: 900_000 });
        const { rules } = (await control("GET", "/faults")) as { rules: { applied: number }[] };
        injected += rules.reduce((n, r) => n + r.applied, 0);
      } finally {
        await control("DELETE", "/faults");
      }
      if (last.code === 0) return { runs, last, injected };
    }
    return { runs: limit + 1, last, injected };
  }

  it.skipIf(!pulumiCli().dir)(`${GROUPS * 20} resources: up converges with the account exactly as recorded, destroy leaves nothing`, async () => {
    const { api_key: apiKey } = (await control("POST", "/accounts", { name: `pulumi-chaos-${percent}`, forecasts: true })) as { api_key: string };
    const stack = await chaosStack(emulator, { apiKey, groups: GROUPS, password: PASSWORD, stack: `chaos${percent}` });

    const up = await untilDone(stack, "up", SEED + percent, percent <= 20 ? MAX_RUNS : STUCK_AFTER_RUNS);
    const state = await recorded(stack);
    const afterUp = await liveChaos(emulator, apiKey);
    const keys = afterUp.map((r) => r.key);
    const duplicates = keys.length - new Set(keys).size;
    const orphans = afterUp.filter((r) => !state.ids.includes(r.id)).length;
    const notLive = state.ids.filter((id) => !afterUp.some((r) => r.id === id)).length;

    const destroy = await untilDone(stack, "destroy", SEED + percent + 1000);
    // `pulumi destroy` starts no step after the first that fails: at 50% faults a delete that fails all the client's
    // attempts ends each run early (finding, see below); a last destroy without faults must then leave nothing.
    if (destroy.runs > MAX_RUNS) await stack.must(["destroy", "--yes", "--skip-preview"]);
    const left = (await liveChaos(emulator, apiKey)).length;
    console.info(`pulumi chaos at ${percent}% (seed ${SEED + percent}, ${GROUPS * 20} resources): up converged in ${up.runs} runs (${up.injected} faults), `
      + `destroy in ${destroy.runs > MAX_RUNS ? `more than ${MAX_RUNS}` : destroy.runs} (${destroy.injected} faults); after up ${afterUp.length} live, ${duplicates} duplicates, ${orphans} orphans, `
      + `${notLive} recorded but not live, ${state.pending} pending; after destroy ${left} left`);

    expect(up.runs, up.last.output.slice(-4000)).toBeLessThanOrEqual(percent <= 20 ? MAX_RUNS : STUCK_AFTER_RUNS);
    expect({ live: afterUp.length, duplicates, orphans, notLive, pending: state.pending }).toEqual({ live: GROUPS * 20, duplicates: 0, orphans: 0, notLive: 0, pending: 0 });
    if (percent <= 20) expect(destroy.runs, destroy.last.output.slice(-4000)).toBeLessThanOrEqual(MAX_RUNS);
    expect(left).toBe(0);
  });
});
