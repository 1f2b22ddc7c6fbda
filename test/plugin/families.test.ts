// Every family with an emulator sample, through the plugin process over gRPC against the emulator, as the engine
// drives a native provider: check -> create -> read (no drift) -> diff (none) -> diff of a change -> update ->
// read -> delete -> read (gone).
import { fromWire, families, type Collection } from "pulumi-audience/sdk/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kinds } from "../../provider/kinds/index.ts";
import { resourceToken } from "../../provider/plugin/tokens.ts";
import type { Client } from "../emulator/helpers.ts";
import { samples } from "../emulator/samples.ts";
import { startWorld, type Plugin, type Props, type World } from "./harness.ts";

let world: World;
let api: Client;
let plugin: Plugin;

beforeAll(async () => {
  world = await startWorld();
  ({ api, plugin } = world);
}, 60_000);

afterAll(async () => {
  await world?.close();
});

/** A sample's program inputs: the wire sample seen through the family's camelCase names. */
async function inputsOf(collection: string): Promise<{ inputs: Props; change: Props }> {
  const family = families[collection as Collection];
  const sample = samples[collection]!;
  return {
    inputs: fromWire(family.create, await sample.body(api)) as Props,
    change: fromWire(family.patch, sample.change) as Props,
  };
}

const covered = Object.keys(samples).filter((collection) => kinds[collection]?.family.creatable);

describe.each(covered)("%s through the plugin", (collection) => {
  it("checks, creates, reads without drift, diffs, updates, deletes", async () => {
    const type = resourceToken(kinds[collection]!);
    const { inputs, change } = await inputsOf(collection);

    const checked = await plugin.check(type, {}, inputs);
    expect(checked.failures).toEqual([]);
    expect(checked.inputs).not.toHaveProperty("__kind");

    const created = await plugin.create(type, checked.inputs);
    expect(created.id).not.toBe("");
    expect(created.properties).not.toHaveProperty("__kind");
    expect(created.properties.name ?? created.properties.url).toBeDefined();

    const read = await plugin.read(type, created.id, created.properties, checked.inputs);
    expect(read.id).toBe(created.id);
    expect(read.properties).toEqual(created.properties);
    expect(read.inputs).toEqual(checked.inputs);

    const same = await plugin.diff(type, created.id, created.properties, checked.inputs);
    expect(same).toMatchObject({ changes: "none", replaces: [], detailed: {} });

    const changedInputs = (await plugin.check(type, checked.inputs, { ...checked.inputs, ...change })).inputs;
    const diff = await plugin.diff(type, created.id, created.properties, changedInputs);
    expect(diff.changes).toBe("some");
    expect(diff.replaces).toEqual([]);
    expect(diff.hasDetailedDiff).toBe(true);
    for (const key of Object.keys(change)) expect(diff.detailed[key]).toMatch(/^(ADD|UPDATE)$/);

    const updated = await plugin.update(type, created.id, created.properties, changedInputs);
    for (const [key, value] of Object.entries(change)) expect(updated[key]).toEqual(value);
    const after = await plugin.read(type, created.id, updated, changedInputs);
    expect(after.properties).toEqual(updated);

    await plugin.delete(type, created.id, updated);
    const gone = await plugin.read(type, created.id, updated, changedInputs);
    expect(gone.id).toBe("");
  });
});
