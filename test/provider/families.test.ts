// Every creatable family through the real dynamic-provider host against the emulator, as the engine drives it:
// check -> create -> read (no drift) -> diff (no request) -> update (one minimal PATCH) -> delete.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorld, type Props, type World } from "./harness.ts";

let world: World;
let leads: string;
let scopeId: string;

/** Program inputs (camelCase) of one resource per family, a change, and the wire PATCH that change must send. */
interface Sample {
  inputs: () => Props;
  change: () => Props;
  patch: Props;
  /** A change of a create-only member, which the service cannot patch: the resource is replaced. */
  replace?: () => Props;
}

const samples: Record<string, Sample> = {
  cohorts: {
    inputs: () => ({ name: "Big spenders", streamName: "transactions", streamConditions: [{ property: "amount", _gte: 100 }] }),
    change: () => ({ streamConditions: [{ property: "amount", _gte: 250 }] }),
    patch: { stream_conditions: [{ property: "amount", _gte: 250 }] },
  },
  connections: {
    inputs: () => ({ name: "Warehouse", options: { type: "postgres", host: "db.example.com", port: 5432, database: "d", schema: "s", user: "u", password: "hunter2" } }),
    change: () => ({ name: "Main warehouse" }),
    patch: { name: "Main warehouse" },
    replace: () => ({ options: { type: "bigquery", projectId: "analytics", datasetName: "audience" } }),
  },
  outcomes: {
    inputs: () => ({ name: "Will buy", attainmentCohortId: leads }),
    change: () => ({ name: "Will buy soon" }),
    patch: { name: "Will buy soon" },
  },
  persona_sets: {
    inputs: () => ({ name: "Personas", cohortId: leads, numberOfClusters: 4 }),
    change: () => ({ numberOfClusters: 5 }),
    patch: { number_of_clusters: 5 },
  },
  recommenders: {
    inputs: () => ({ name: "Next product", streamName: "transactions", streamPropertyName: "product" }),
    change: () => ({ name: "Next best product" }),
    patch: { name: "Next best product" },
  },
  scopes: {
    inputs: () => ({ name: "Pipeline", population: { cohortIds: [leads] }, payload: { cohortIds: [leads], location: { maxDistance: 5000 } }, preview: true }),
    change: () => ({ payload: { cohortIds: [leads], location: { minDistance: 100 } } }),
    patch: { payload: { location: { max_distance: null, min_distance: 100 } } },
  },
  targets: {
    inputs: () => ({ name: "Hosted", scopeId, representation: { mode: "identified" }, options: { type: "hosted_csv" } }),
    change: () => ({ options: { type: "hosted_csv", delimiter: ";" } }),
    patch: { options: { delimiter: ";" } },
    replace: () => ({ options: { type: "lookup_api" } }),
  },
  streams: {
    inputs: () => ({ name: "purchases", properties: { amount: { type: "double" } } }),
    change: () => ({ description: "Purchases" }),
    patch: { description: "Purchases" },
  },
  traits: {
    inputs: () => ({ name: "favourite_colour", category: "preferences" }),
    change: () => ({ description: "Favourite colour" }),
    patch: { description: "Favourite colour" },
  },
  attributes: {
    inputs: () => ({ name: "ig/age_band", statisticalType: "categorical_ordinal" }),
    change: () => ({ unit: "years" }),
    patch: { unit: "years" },
  },
  feature_stores: {
    inputs: () => ({ name: "Store" }),
    change: () => ({ name: "Main store" }),
    patch: { name: "Main store" },
  },
  atlases: {
    inputs: () => ({ name: "Stores", options: { type: "hosted_csv", uploadDirectory: "stores" }, outputToLocations: { name: "store_name", latitude: "lat", longitude: "lon" } }),
    change: () => ({ name: "Our stores" }),
    patch: { name: "Our stores" },
    replace: () => ({ connectionId: "11111111-1111-4111-8111-111111111111", options: { type: "s3_csv", objectKey: "stores.csv" } }),
  },
  datasets: {
    inputs: () => ({ name: "Orders", identitySets: { main: { email: "email" } }, options: { type: "hosted_csv", uploadDirectory: "orders" } }),
    change: () => ({ name: "All orders" }),
    patch: { name: "All orders" },
    replace: () => ({ connectionId: "11111111-1111-4111-8111-111111111111", options: { type: "s3_csv", prefix: "orders/" } }),
  },
  webhook_endpoints: {
    inputs: () => ({ url: "https://hooks.example.com/audience", enabledEvents: ["resource.errored"] }),
    change: () => ({ description: "Errors" }),
    patch: { description: "Errors" },
  },
  use_cases: {
    inputs: () => ({ name: "Win back lapsed customers" }),
    change: () => ({ guide: "Step one" }),
    patch: { guide: "Step one" },
  },
  market_opportunity_analyses: {
    inputs: () => ({ name: "Market" }),
    change: () => ({ name: "Market 2" }),
    patch: { name: "Market 2" },
  },
  accounts: {
    inputs: () => ({ name: "Regional brand" }),
    change: () => ({ name: "Regional brand (west)" }),
    patch: { name: "Regional brand (west)" },
  },
};

beforeAll(async () => {
  world = await startWorld();
  const cohorts = (await world.api("GET", "/cohorts")) as { id: string; name: string }[];
  leads = cohorts.find((c) => c.name === "Leads")!.id;
  const scope = (await world.api("POST", "/scopes", { name: "For targets", population: { cohort_ids: [leads] }, payload: { cohort_ids: [leads] }, preview: true })) as { id: string };
  scopeId = scope.id;
});
afterAll(async () => world?.close());

describe.each(Object.entries(samples))("%s", (collection, sample) => {
  it("refuses a bad body at check, naming the member, before any request", async () => {
    const mark = await world.mark();
    const { failures } = await world.host.check({}, world.inputs(collection, { ...sample.inputs(), notAMember: 1 }));
    expect(failures).toContainEqual(expect.objectContaining({ property: "notAMember" }));
    expect(await world.serviceCalls(mark)).toEqual([]);
  });

  it("creates, reads back without drift, diffs without a request, patches minimally, deletes", async () => {
    const news = world.inputs(collection, { ...sample.inputs(), deletionMode: "delete" });
    const checked = await world.host.check({}, news);
    expect(checked.failures).toEqual([]);

    let mark = await world.mark();
    const created = await world.host.create(checked.inputs);
    expect((await world.serviceCalls(mark)).map((c) => c.method)).toEqual(["POST"]);
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);

    const read = await world.host.read(created.id, created.properties);
    expect(read.id).toBe(created.id);
    // Refresh reads back exactly the inputs check recorded (the program's, with the service's defaults).
    expect(read.inputs).toEqual(checked.inputs);
    // Refresh rewrites inputs from the service's answer: an untouched resource diffs clean against them.
    mark = await world.mark();
    expect((await world.host.diff(created.id, read.properties, checked.inputs)).changes).toBe("none");
    expect((await world.host.diff(created.id, read.properties, world.inputs(collection, { ...read.inputs }))).changes).toBe("none");
    expect(await world.serviceCalls(mark)).toEqual([]);

    const changed = world.inputs(collection, { ...sample.inputs(), ...sample.change(), deletionMode: "delete" });
    const diff = await world.host.diff(created.id, read.properties, changed);
    expect(diff).toMatchObject({ changes: "some", replaces: [] });

    mark = await world.mark();
    const before = world.proxy.requests.length;
    const updated = await world.host.update(created.id, read.properties, changed);
    expect((await world.serviceCalls(mark)).map((c) => c.method)).toEqual(["PATCH"]);
    expect(world.proxy.requests.slice(before).map((r) => r.body)).toEqual([sample.patch]);
    expect((await world.host.diff(created.id, updated.properties, changed)).changes).toBe("none");

    mark = await world.mark();
    await world.host.delete(created.id, updated.properties);
    expect((await world.serviceCalls(mark)).map((c) => c.method)).toEqual(["DELETE"]);
    if (collection === "accounts") {
      // A sub-account is deleted after the service's waiting period: the request is recorded.
      expect(await world.api("GET", `/accounts/${created.id}`)).toMatchObject({ deletion_requested_at: expect.any(String) });
    } else {
      expect((await world.host.read(created.id, updated.properties)).id).toBe("");
    }
  });
});

// Families with create-only members (the service cannot patch them): changing one replaces the resource.
describe.each(Object.entries(samples).filter(([, s]) => s.replace))("%s", (collection, sample) => {
  it("replaces when a create-only member changes, deciding it without a request", async () => {
    const recorded = (await world.host.check({}, world.inputs(collection, sample.inputs()))).inputs;
    const replaced = world.inputs(collection, { ...sample.inputs(), ...sample.replace!() });
    expect((await world.host.check({}, replaced)).failures).toEqual([]);
    const mark = await world.mark();
    const diff = await world.host.diff("x", recorded, replaced);
    expect(diff).toMatchObject({ changes: "some", replaces: ["options"] });
    expect(await world.serviceCalls(mark)).toEqual([]);
  });
});
