// What `audience pending` takes as made by a pending create, against an emulated account: only the one resource
// with the declared name and configuration, created in the window, that no state records and no other pending
// create could have made; a same-name resource of another stack made before the window, or with another
// configuration, never; several candidates, none.
import { afterAll, beforeAll, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "pulumi-audience/emulator";
import { accountServices } from "../../provider/runtime/lifecycle/service-client.ts";
import { readSettings } from "../../provider/runtime/lifecycle/settings.ts";
import { resolvePendingCreates, type PendingCreate } from "../../provider/runtime/lifecycle/pending.ts";
import { passTime } from "../clock.ts";

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(() => emulator?.close());

async function cohort(name: string, minCount: number): Promise<string> {
  const res = await fetch(`${emulator.url}/v1/cohorts`, {
    method: "POST", headers: { authorization: `Bearer ${emulator.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ name, stream_name: "transactions", min_count: minCount }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

const TYPE = "pulumi-nodejs:dynamic/audience:Cohort";
const pending = (name: string, minCount: number, since: number): PendingCreate => ({
  urn: `urn:pulumi:dev::p::${TYPE}::${name}`, type: TYPE, inputs: { __kind: "cohorts", name, streamName: "transactions", minCount }, since, until: Date.now() + 60_000,
});

it("takes only the one resource the create can have made", async () => {
  const services = accountServices(() => readSettings(() => undefined, { AUDIENCE_BASE_URL: `${emulator.url}/v1`, AUDIENCE_API_KEY: emulator.apiKey }));
  // Another stack's, before the window: same name and configuration; same name, other configuration.
  const before = await cohort("Before", 1);
  await cohort("Other config", 2);
  passTime(6_000); // past the allowance for the service's clock
  const since = Date.now();
  const made = await cohort("Made", 1);
  await cohort("Other config", 3);
  const twins = [await cohort("Twice", 1), await cohort("Twice", 1)];
  const recorded = await cohort("Recorded", 1);
  const recordedTwin = await cohort("Recorded", 1);
  const shared = await cohort("Shared", 1);

  const resolutions = await resolvePendingCreates([
    pending("Before", 1, since),
    pending("Other config", 2, since),
    pending("Made", 1, since),
    pending("Twice", 1, since),
    pending("Recorded", 1, since),
    { ...pending("Shared", 1, since), urn: "urn:pulumi:dev::p::pulumi-nodejs:dynamic/audience:Cohort::shared-a" },
    { ...pending("Shared", 1, since), urn: "urn:pulumi:dev::p::pulumi-nodejs:dynamic/audience:Cohort::shared-b" },
    { urn: "urn:pulumi:dev::p::random:index:RandomId::r", type: "random:index:RandomId", inputs: {}, since, until: Date.now() },
  ], services.service, new Set([recorded]));

  expect(resolutions.map((r) => ({ ...r, urn: r.urn.split("::").pop() }))).toEqual([
    { urn: "Before", action: "clear" },
    { urn: "Other config", action: "clear" },
    { urn: "Made", action: "import", id: made },
    { urn: "Twice", action: "ambiguous", candidates: twins },
    { urn: "Recorded", action: "import", id: recordedTwin },
    { urn: "shared-a", action: "ambiguous", candidates: [shared] },
    { urn: "shared-b", action: "ambiguous", candidates: [shared] },
    { urn: "r", action: "unknown", reason: "random:index:RandomId is not a resource type of this package" },
  ]);
  expect(before).not.toBe(made);
});
