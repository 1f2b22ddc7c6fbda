// Convergence under heavy faults: the chaos program (20 resources a group) runs through the local engine in native
// and dynamic mode while the emulator fails about half of all requests (503, 429 with Retry-After, a reset before or
// after processing, latency), seeded. `up` is run again until it succeeds; the account must then hold exactly what the
// state records, once each. `destroy` is run again until it succeeds; nothing may be left. CHAOS_PERCENT (default 50)
// and CHAOS_GROUPS (default 10: 200 resources) set the level and the size for measurements, CHAOS_SEED the faults drawn.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Operation, RunResult } from "../../provider/engine/index.ts";
import { nativePrograms } from "./native-programs.ts";

const world = nativePrograms({ port: 0, builds: { default: "immediate" }, world: { size: 2000 } });
const PERCENT = Number(process.env["CHAOS_PERCENT"] ?? "50");
const GROUPS = Number(process.env["CHAOS_GROUPS"] ?? "10");
const MAX_RUNS = 12;
const SEED = Number(process.env["CHAOS_SEED"] ?? "20261124");
const PASSWORD = "convergence-warehouse-password";
const FAMILIES = ["cohorts", "outcomes", "persona_sets", "scopes", "connections", "targets", "webhook_endpoints"];
const RULES = [{ status: 503 }, { status: 429, retry_after: 0.05 }, { reset: "before" }, { reset: "after" }, { latency_ms: 25 }];
// Five rules drawn one after another: each at p, so that 1 - (1 - p)^5 of requests get one.
const PROBABILITY = 1 - (1 - PERCENT / 100) ** (1 / RULES.length);

const source = readFileSync(join(import.meta.dirname, "fixtures", "chaos", "index.ts"), "utf8");

describe.each([["native", "pulumi-audience/native"], ["dynamic", "pulumi-audience"]] as const)(`in %s mode, under ${PERCENT}% faults`, (mode, module) => {
  it(`up converges to the account exactly and destroy empties it (${GROUPS * 20} resources)`, { timeout: 3_600_000 }, async () => {
    const { apiKey } = await world.account(`chaos-${mode}`);
    const dir = world.program(`chaos-${mode}`, { index: source.replace(/from "pulumi-audience"/, `from "${module}"`) });
    const extra = { config: { groups: String(GROUPS) }, secrets: { warehousePassword: PASSWORD } };

    /** Runs the operation under faults until it succeeds; answers how many runs it took. */
    async function untilDone(operation: Operation, seed: number): Promise<{ runs: number; last: RunResult }> {
      let last!: RunResult;
      for (let runs = 1; runs <= MAX_RUNS; runs++) {
        await world.control("PUT", "/faults", { seed: seed + runs, rules: RULES.map((rule) => ({ path: "/**", probability: PROBABILITY, ...rule })) });
        try {
          last = await world.run(dir, apiKey, operation, extra);
        } finally {
          await world.control("DELETE", "/faults");
        }
        if (last.ok) return { runs, last };
      }
      return { runs: MAX_RUNS + 1, last };
    }

    async function live(): Promise<{ id: string; key: string }[]> {
      const found: { id: string; key: string }[] = [];
      for (const family of FAMILIES) {
        for (const r of await world.list<{ id: string; name?: string; url?: string }>(apiKey, family)) {
          const key = `${family}:${r.name ?? r.url ?? ""}`;
          if (/Chaos |\/chaos\//.test(key)) found.push({ id: r.id, key });
        }
      }
      return found;
    }

    const up = await untilDone("up", SEED);
    const state = JSON.parse(readFileSync(up.last.statePath, "utf8")) as { deployment: { resources: { custom?: boolean; type: string; id?: string }[]; pending_operations?: unknown[] } };
    const recorded = state.deployment.resources.filter((r) => r.custom && !r.type.startsWith("pulumi:providers:") && r.id).map((r) => r.id!);
    const afterUp = await live();
    const keys = afterUp.map((r) => r.key);
    const duplicates = keys.length - new Set(keys).size;
    const orphans = afterUp.filter((r) => !recorded.includes(r.id)).length;
    const notLive = recorded.filter((id) => !afterUp.some((r) => r.id === id)).length;

    const destroy = await untilDone("destroy", SEED + 1000);
    const left = (await live()).length;
    console.info(`chaos ${mode} at ${PERCENT}% (${GROUPS * 20} resources): up converged in ${up.runs} runs, destroy in ${destroy.runs}; `
      + `after up ${afterUp.length} live, ${duplicates} duplicates, ${orphans} orphans, ${notLive} not live; after destroy ${left} left`);

    expect(up.runs, up.last.error).toBeLessThanOrEqual(MAX_RUNS);
    expect(state.deployment.pending_operations ?? []).toEqual([]);
    expect({ live: afterUp.length, duplicates, orphans, notLive }).toEqual({ live: GROUPS * 20, duplicates: 0, orphans: 0, notLive: 0 });
    expect(destroy.runs, destroy.last.error).toBeLessThanOrEqual(MAX_RUNS);
    expect(left).toBe(0);
  });
});
