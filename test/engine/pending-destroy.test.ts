// A create whose answer was lost while its look failed too stays pending; a destroy or a refresh then resolves it as
// up does: it looks for what the create made (sending no create), records it, and a destroy deletes it. Nothing is
// left behind in the account, and nothing stays pending. Through the local engine in native mode (the plugin) and
// dynamic mode (this package's dynamic resources).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { RunResult } from "../../provider/engine/index.ts";
import { GIVES_UP_SOON, nativePrograms, writes } from "./native-programs.ts";

const world = nativePrograms({ port: 0, builds: { default: "immediate" } });

const MODES = [["native", "pulumi-audience/native"], ["dynamic", "pulumi-audience"]] as const;

const program = (module: string, tag: string) => `import * as audience from "${module}";
new audience.Cohort("cohort", { name: "Pending ${tag} cohort", streamName: "transactions", minCount: 3 });
new audience.WebhookEndpoint("hook", { url: "https://hooks.example.com/pending/${tag}", enabledEvents: ["resource.errored"] });
`;

const pendingOf = (result: RunResult) =>
  (JSON.parse(readFileSync(result.statePath, "utf8")) as { deployment: { pending_operations?: { type: string }[] } }).deployment.pending_operations ?? [];

const recorded = (result: RunResult) =>
  (JSON.parse(readFileSync(result.statePath, "utf8")) as { deployment: { resources: { type: string; custom?: boolean; id?: string }[] } })
    .deployment.resources.filter((r) => r.custom && !r.type.startsWith("pulumi:providers:")).map((r) => r.id);

describe.each(MODES)("a create left pending (answer lost, look failed), in %s mode", { timeout: 300_000 }, (mode, module) => {
  async function pendingCohort(tag: string) {
    const { apiKey } = await world.account(`pending-${tag}`);
    const dir = world.program(`pending-${tag}`, { index: program(module, tag) });
    await world.control("PUT", "/faults", { rules: [{ method: "POST", path: "/cohorts", reset: "after", count: 1 }, { method: "GET", path: "/cohorts", status: 503 }] });
    const first = await world.run(dir, apiKey, "up", { env: GIVES_UP_SOON });
    await world.control("DELETE", "/faults");
    expect(first.ok).toBe(false);
    expect(pendingOf(first).map((p) => p.type)).toEqual(["creating"]);
    const cohorts = async () => (await world.list<{ id: string; name: string }>(apiKey, "cohorts")).filter((c) => c.name === `Pending ${tag} cohort`);
    // The lost create did make it: a cohort the state does not hold.
    expect(await cohorts()).toHaveLength(1);
    return { apiKey, dir, cohorts };
  }

  it("is resolved by destroy, which deletes what it made: nothing left in the account, nothing pending", async () => {
    const { apiKey, dir, cohorts } = await pendingCohort(`destroy-${mode}`);
    const destroyed = await world.run(dir, apiKey, "destroy");
    expect(destroyed.ok, destroyed.error).toBe(true);
    expect(destroyed.diagnostics.some((d) => /the interrupted create of .*cohort made \S+: it is recorded in the state/.test(d.message))).toBe(true);
    expect(await cohorts()).toEqual([]);
    expect(pendingOf(destroyed)).toEqual([]);
    expect(recorded(destroyed)).toEqual([]);
  });

  it("is resolved by refresh, which records what it made: the next up creates nothing", async () => {
    const { apiKey, dir, cohorts } = await pendingCohort(`refresh-${mode}`);
    const refreshed = await world.run(dir, apiKey, "refresh");
    expect(refreshed.ok, refreshed.error).toBe(true);
    expect(pendingOf(refreshed)).toEqual([]);
    const [made] = await cohorts();
    expect(recorded(refreshed)).toContain(made!.id);
    await world.requests();
    const up = await world.run(dir, apiKey, "up");
    expect(up.ok, up.error).toBe(true);
    expect(writes(await world.requests()).filter((w) => w.startsWith("POST /v1/cohorts"))).toEqual([]);
    expect(await cohorts()).toHaveLength(1);
  });

  it("that made nothing is dropped by destroy", async () => {
    const tag = `nothing-${mode}`;
    const { apiKey } = await world.account(`pending-${tag}`);
    const dir = world.program(`pending-${tag}`, { index: program(module, tag) });
    // The create is refused before it reaches the service (reset before), and the look fails: pending, nothing made.
    await world.control("PUT", "/faults", { rules: [{ method: "POST", path: "/cohorts", reset: "before" }, { method: "GET", path: "/cohorts", status: 503 }] });
    const first = await world.run(dir, apiKey, "up", { env: GIVES_UP_SOON });
    await world.control("DELETE", "/faults");
    expect(first.ok).toBe(false);
    expect(pendingOf(first).map((p) => p.type)).toEqual(["creating"]);
    const destroyed = await world.run(dir, apiKey, "destroy");
    expect(destroyed.ok, destroyed.error).toBe(true);
    expect(destroyed.diagnostics.some((d) => /the interrupted create of .*cohort made nothing: it is dropped/.test(d.message))).toBe(true);
    expect(pendingOf(destroyed)).toEqual([]);
  });
});
