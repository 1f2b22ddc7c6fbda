// Every family of the shared samples (test/samples.ts), through the plugin process over gRPC against the emulator,
// as the engine drives a native provider: check -> create -> read (no drift) -> diff (none) -> diff of a change
// -> update -> read -> delete -> read (gone); and a change of a create-only member, which replaces.
import { families, type Collection } from "pulumi-audience/sdk/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { providerFamilies } from "../../provider/runtime/families/index.ts";
import { resourceToken } from "../../provider/plugin/tokens.ts";
import { sampleIds } from "../emulator/helpers.ts";
import { camel, samples, type Json } from "../samples.ts";
import { startWorld, type Plugin, type Props, type World } from "./harness.ts";

let world: World;
let plugin: Plugin;

beforeAll(async () => {
  world = await startWorld();
  ({ plugin } = world);
}, 60_000);

afterAll(async () => {
  await world?.close();
});

/** A sample's program inputs and a change of them, in the camelCase a program writes. */
async function programOf(collection: Collection): Promise<{ inputs: Props; change: Props }> {
  const sample = samples[collection]!;
  const body = await sample.body(sampleIds(world.api));
  return { inputs: camel(collection, body), change: camel(collection, sample.change(body)) };
}

const typeOf = (collection: Collection) => resourceToken(providerFamilies[collection]!.family.className);
const all = Object.keys(samples) as Collection[];

describe.each(all)("%s through the plugin", (collection) => {
  it("checks, creates, reads without drift, diffs, updates, deletes", async () => {
    const type = typeOf(collection);
    const { inputs, change } = await programOf(collection);

    const checked = await plugin.check(type, {}, inputs);
    expect(checked.failures).toEqual([]);
    expect(checked.inputs).not.toHaveProperty("__kind");

    const created = await plugin.create(type, checked.inputs);
    expect(created.id).not.toBe("");
    expect(created.properties).not.toHaveProperty("__kind");

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
    for (const path of Object.keys(diff.detailed)) expect(Object.keys(change)).toContain(path.split(/[.[]/)[0]);
    expect(Object.values(diff.detailed).every((kind) => ["ADD", "UPDATE", "DELETE"].includes(kind))).toBe(true);

    const updated = await plugin.update(type, created.id, created.properties, changedInputs);
    const after = await plugin.read(type, created.id, updated, changedInputs);
    expect(after.properties).toEqual(updated);
    expect((await plugin.diff(type, created.id, updated, changedInputs)).changes).toBe("none");

    await plugin.delete(type, created.id, updated);
    const gone = await plugin.read(type, created.id, updated, changedInputs);
    if (families[collection].deletion === "scheduled") {
      // Deleted after the service's waiting period: the request is recorded.
      const path = `/v1/${families[collection].path}/${created.id}`;
      expect((await world.api.get<Json>(path)).body).toMatchObject({ deletion_requested_at: expect.any(String) });
    } else {
      expect(gone.id).toBe("");
    }
  });
});

describe.each(all.filter((c) => samples[c]!.replace))("%s through the plugin", (collection) => {
  it("marks a change of a create-only member as a replacement in the detailed diff", async () => {
    const type = typeOf(collection);
    const { inputs } = await programOf(collection);
    const checked = (await plugin.check(type, {}, inputs)).inputs;
    const created = await plugin.create(type, checked);
    const replaced = await plugin.check(type, checked, { ...checked, ...camel(collection, await samples[collection]!.replace!(sampleIds(world.api))) });
    expect(replaced.failures).toEqual([]);
    const diff = await plugin.diff(type, created.id, created.properties, replaced.inputs);
    expect(diff.replaces.length).toBeGreaterThan(0);
    expect(Object.values(diff.detailed)).toContain("UPDATE_REPLACE");
  });
});

describe("an Upload recorded before md5Hash was an input", () => {
  it("reads back the inputs as recorded while the service holds the recorded bytes, with md5Hash once they changed", async () => {
    const type = "audience:index:Upload";
    const checked = await plugin.check(type, {}, { directory: "legacy", filename: "people.csv", content: "id\n1\n" });
    expect(checked.failures).toEqual([]);
    const made = await plugin.create(type, checked.inputs);
    const { md5Hash, ...legacy } = checked.inputs;
    expect(md5Hash).toBe(made.properties.md5Hash);

    expect((await plugin.read(type, made.id, made.properties, legacy)).inputs).toEqual(legacy);
    expect((await plugin.read(type, made.id, made.properties, checked.inputs)).inputs).toEqual(checked.inputs);

    const byHand = await world.api.call("POST", "/v1/uploads/legacy/people.csv", undefined, { contentType: "text/csv", raw: "id\n9\n" });
    expect(byHand.status).toBe(201);
    const drifted = await plugin.read(type, made.id, made.properties, legacy);
    expect(drifted.inputs).toEqual({ ...legacy, md5Hash: drifted.properties.md5Hash });
    expect(drifted.properties.md5Hash).not.toBe(md5Hash);
    await plugin.delete(type, made.id, drifted.properties);
  });
});

describe("an imported Upload", () => {
  it("records directory and filename from its id: its inputs check, and the program declaring its bytes replaces nothing", async () => {
    const type = "audience:index:Upload";
    const byHand = await world.api.call("POST", "/v1/uploads/impdir/imp.csv", undefined, { contentType: "text/csv", raw: "email\nimp@example.com\n" });
    expect(byHand.status).toBe(201);
    const imported = await plugin.read(type, "impdir/imp.csv", {}, {});
    expect(imported.inputs).toMatchObject({ directory: "impdir", filename: "imp.csv" });
    // What pulumi import checks: only the bytes, which no read can tell, are left to the program.
    expect((await plugin.check(type, imported.inputs, imported.inputs)).failures.map((f) => f.property)).toEqual(["content"]);
    const declared = await plugin.check(type, imported.inputs, { directory: "impdir", filename: "imp.csv", content: "email\nimp@example.com\n" });
    const diff = await plugin.diff(type, imported.id, imported.properties, declared.inputs);
    expect(diff.replaces).toEqual([]);
    expect(diff.diffs).not.toContain("directory");
    expect(diff.diffs).not.toContain("filename");
    await plugin.delete(type, imported.id, imported.properties);
  });
});

describe("an Upload replaced at its own path", () => {
  it("answers delete-before-replace, which Pulumi keeps when replaceOnChanges forces the replace", async () => {
    const type = "audience:index:Upload";
    const checked = await plugin.check(type, {}, { directory: "dbr", filename: "kept.csv", content: "id\n1\n" });
    const made = await plugin.create(type, checked.inputs);
    const newBytes = await plugin.check(type, checked.inputs, { directory: "dbr", filename: "kept.csv", content: "id\n2\n" });
    expect(await plugin.diff(type, made.id, made.properties, newBytes.inputs)).toMatchObject({ changes: "some", replaces: [], deleteBeforeReplace: true });
    const moved = await plugin.check(type, checked.inputs, { directory: "dbr", filename: "moved.csv", content: "id\n1\n" });
    expect(await plugin.diff(type, made.id, made.properties, moved.inputs)).toMatchObject({ replaces: ["filename"], deleteBeforeReplace: false });
    await plugin.delete(type, made.id, made.properties);
  });
});

describe("a resource whose awaited build failed", () => {
  it("diffs as an update naming `build`, which runs the build again", async () => {
    const type = typeOf("cohorts");
    const checked = (await plugin.check(type, {}, { name: "Rebuilt", streamName: "transactions", minCount: 2, waitFor: "ready" })).inputs;
    const created = await plugin.create(type, checked);
    // As a failed create records it (the emulator's builds here pass at once).
    const failed = { ...created.properties, status: "error", statusError: "the stream is empty" };
    const diff = await plugin.diff(type, created.id, failed, checked);
    expect(diff).toMatchObject({ changes: "some", replaces: [], diffs: ["build"], detailed: { build: "UPDATE" } });
    const updated = await plugin.update(type, created.id, failed, checked);
    expect(updated.status).toBe("ready");
    expect((await world.control.requests("?method=POST")).map((r) => r.path)).toContain(`/cohorts/${created.id}/force_update`);
    expect((await plugin.diff(type, created.id, updated, checked)).changes).toBe("none");
  });
});
