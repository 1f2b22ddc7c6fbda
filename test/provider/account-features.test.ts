// Preview refuses a member the account cannot take for want of a feature, naming the member (camelCase) and the
// feature, in the lifecycle the hosts wire; with the feature set on the account, preview passes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorld, type World } from "./harness.ts";

const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

let world: World;
beforeAll(async () => {
  world = await startWorld({});
});
afterAll(async () => world?.close());

// The scope is made in the same program: its id is unknown in preview, the member that needs a feature is not.
const target = (extra: Record<string, unknown>) =>
  world.inputs("targets", { name: "Analysed", scopeId: UNKNOWN, representation: { mode: "identified" }, options: { type: "hosted_csv" }, ...extra });

describe("check of members that need an account feature", () => {
  it("fails in preview naming the member and the feature, makes no write, and passes once the account has it", async () => {
    const mark = await world.mark();
    const { failures } = await world.host.check({}, target({ analysisConfig: { attributes: ["ig/age"] }, filter: { attribute: [{ name: "ig/age", _gte: 30 }] } }));
    expect(failures).toEqual(expect.arrayContaining([
      { property: "analysisConfig.attributes", reason: expect.stringMatching(/^analysisConfig\.attributes needs an account with an identity graph .* and a feature store/) },
      { property: "filter.attribute", reason: expect.stringMatching(/^filter\.attribute needs an account with an identity graph/) },
    ]));
    expect((await world.serviceCalls(mark)).filter((c) => c.method !== "GET")).toEqual([]);

    const account = (await world.api("GET", "/v1/accounts/current")) as { id: string };
    await world.api("PATCH", `/v1/accounts/${account.id}`, { identity_graph: "v2" });
    await world.api("POST", "/v1/feature_stores", { name: "Provided attributes" });
    const passing = await world.host.check({}, target({ analysisConfig: { attributes: ["ig/age"] }, filter: { attribute: [{ name: "ig/age", _gte: 30 }] } }));
    expect(passing.failures).toEqual([]);
  });
});
