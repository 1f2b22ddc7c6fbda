// A stack written by the previous version, whose programs registered each resource's family as `__kind` beside one
// shared `__provider` shim, taken over by this version's programs (the family named by each family's own shim): the
// first `up` sends the service nothing and records the new shims with the family kept as `__kind`; the next changes
// nothing at all, not even the state file.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EARLIER_PROVIDER_MODULES, providerModule } from "../../provider/runtime/resources/shim.ts";
import { nativePrograms, writes } from "./native-programs.ts";

const world = nativePrograms({ port: 0, builds: { default: "immediate" } });

/** What the previous version's `new audience.Cohort(...)` and `new audience.WebhookEndpoint(...)` registered. */
const PREVIOUS = `import * as pulumi from "@pulumi/pulumi";
const shim = ${JSON.stringify(EARLIER_PROVIDER_MODULES.at(-1))};
new pulumi.CustomResource("pulumi-nodejs:dynamic/audience:Cohort", "leads", { name: "Leads", minCount: 2, __kind: "cohorts", __provider: shim });
new pulumi.CustomResource("pulumi-nodejs:dynamic/audience:WebhookEndpoint", "alerts", { url: "https://hooks.example.com/upgrade", enabledEvents: ["resource.errored"], __kind: "webhook_endpoints", __provider: shim });
`;

const CURRENT = `import * as audience from "pulumi-audience";
new audience.Cohort("leads", { name: "Leads", minCount: 2 });
new audience.WebhookEndpoint("alerts", { url: "https://hooks.example.com/upgrade", enabledEvents: ["resource.errored"] });
`;

interface StateFile { deployment: { resources: { type: string; inputs: Record<string, unknown>; outputs: Record<string, unknown> }[] } }

describe("a stack the previous version wrote, under this version's programs", { timeout: 120_000 }, () => {
  it("takes the families' own shims without a call to the service, then changes nothing", async () => {
    const { apiKey } = await world.account("shim-upgrade");
    const dir = world.program("shim-upgrade", { index: PREVIOUS });
    const statePath = join(dir, "state", "dev.json");
    const first = await world.run(dir, apiKey, "up");
    expect(first.ok, first.error).toBe(true);
    expect(first.changes).toEqual({ create: 3 }); // the stack too
    await world.requests();

    // The same folder, now holding this version's program.
    writeFileSync(join(dir, "index.ts"), CURRENT);
    const upgraded = await world.run(dir, apiKey, "up");
    expect(upgraded.ok, upgraded.error).toBe(true);
    expect(upgraded.changes).toEqual({ same: 3 });
    expect(writes(await world.requests())).toEqual([]);
    const state = JSON.parse(readFileSync(statePath, "utf8")) as StateFile;
    const ours = state.deployment.resources.filter((r) => r.type.startsWith("pulumi-nodejs:dynamic/audience:"));
    // In the order the steps ended, which is no concern of this test.
    expect(ours.map((r) => [r.inputs["__kind"], r.inputs["__provider"] === providerModule(String(r.inputs["__kind"]))]).sort()).toEqual([["cohorts", true], ["webhook_endpoints", true]]);

    const text = readFileSync(statePath, "utf8");
    const again = await world.run(dir, apiKey, "up");
    expect(again.ok, again.error).toBe(true);
    expect(again.changes).toEqual({ same: 3 });
    expect(writes(await world.requests())).toEqual([]);
    expect(readFileSync(statePath, "utf8")).toBe(text);
  });
});
