// Every creatable family through the lifecycle the hosts wire, in process, against the emulator, as the engine drives it:
// check -> create -> read (no drift) -> diff (no request) -> update (one minimal PATCH) -> delete.
// Program inputs are the shared wire samples (test/samples.ts) in the camelCase a program writes.
import type { Collection } from "pulumi-audience/sdk/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { camel, samples, type SampleIds } from "../samples.ts";
import { startWorld, type World } from "./harness.ts";

let world: World;

/** Samples' dependencies, created through the emulator the provider talks to. */
const ids: SampleIds = {
  async leads() {
    const cohorts = (await world.api("GET", "/cohorts")) as { id: string; name: string }[];
    return cohorts.find((c) => c.name === "Leads")!.id;
  },
  async create(collection, body) {
    return ((await world.api("POST", `/${collection}`, body)) as { id: string }).id;
  },
};

/** A family's program inputs, a change of them, and the wire PATCH that change must send. */
async function programOf(collection: Collection) {
  const sample = samples[collection]!;
  const body = await sample.body(ids);
  return {
    inputs: camel(collection, body),
    change: camel(collection, sample.change(body)),
    patch: sample.patch ?? sample.change(body),
  };
}

beforeAll(async () => {
  world = await startWorld();
  // The provider checks its config against the service once per process, at the first check: done here, so the
  // checks below are seen to make no request of their own.
  const { inputs } = await programOf("scopes");
  await world.host.check({}, world.inputs("scopes", inputs));
});
afterAll(async () => world?.close());

const all = Object.keys(samples) as Collection[];

describe.each(all)("%s", (collection) => {
  it("refuses a bad body at check, naming the member, before any request", async () => {
    const { inputs } = await programOf(collection);
    const mark = await world.mark();
    const { failures } = await world.host.check({}, world.inputs(collection, { ...inputs, notAMember: 1 }));
    expect(failures).toContainEqual(expect.objectContaining({ property: "notAMember" }));
    expect(await world.serviceCalls(mark)).toEqual([]);
  });

  it("creates, reads back without drift, diffs without a request, patches minimally, deletes", async () => {
    const program = await programOf(collection);
    const news = world.inputs(collection, { ...program.inputs, deletionMode: "delete" });
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

    const changed = world.inputs(collection, { ...program.inputs, ...program.change, deletionMode: "delete" });
    const diff = await world.host.diff(created.id, read.properties, changed);
    expect(diff).toMatchObject({ changes: "some", replaces: [] });

    mark = await world.mark();
    const before = world.proxy.requests.length;
    const updated = await world.host.update(created.id, read.properties, changed);
    expect((await world.serviceCalls(mark)).map((c) => c.method)).toEqual(["PATCH"]);
    expect(world.proxy.requests.slice(before).map((r) => r.body)).toEqual([program.patch]);
    expect((await world.host.diff(created.id, updated.properties, changed)).changes).toBe("none");

    mark = await world.mark();
    await world.host.delete(created.id, updated.properties);
    // One write; a family whose resources make others (a dataset's streams and traits) reads what it made.
    expect((await world.serviceCalls(mark)).map((c) => c.method).filter((method) => method !== "GET")).toEqual(["DELETE"]);
    if (collection === "accounts") {
      // A sub-account is deleted after the service's waiting period: the request is recorded.
      expect(await world.api("GET", `/accounts/${created.id}`)).toMatchObject({ deletion_requested_at: expect.any(String) });
    } else {
      expect((await world.host.read(created.id, updated.properties)).id).toBe("");
    }
  });
});

// Families with create-only members (the service cannot patch them): changing one replaces the resource.
describe.each(all.filter((c) => samples[c]!.replace))("%s", (collection) => {
  it("replaces when a create-only member changes, deciding it without a request", async () => {
    const { inputs } = await programOf(collection);
    const recorded = (await world.host.check({}, world.inputs(collection, inputs))).inputs;
    const replaced = world.inputs(collection, { ...inputs, ...camel(collection, await samples[collection]!.replace!(ids)) });
    expect((await world.host.check({}, replaced)).failures).toEqual([]);
    const mark = await world.mark();
    const diff = await world.host.diff("x", recorded, replaced);
    expect(diff).toMatchObject({ changes: "some", replaces: ["options"] });
    expect(await world.serviceCalls(mark)).toEqual([]);
  });
});
