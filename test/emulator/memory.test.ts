// What the emulator keeps per document: ids as flat strings, and the text of each document answered.
import { execFileSync } from "node:child_process";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../../emulator/ids.ts";
import { ResourceIndex } from "../../emulator/resource-index.ts";
import { emulator, type Client, type Json } from "./helpers.ts";

describe("newId", () => {
  it("is a version 4 uuid", () => {
    const ids = new Set(Array.from({ length: 100 }, newId));
    expect(ids.size).toBe(100);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it("is one flat string on the heap, where randomUUID() is a tree of pieces", () => {
    // A heap snapshot names a flat string by its text; a string joined from pieces by none of it.
    const script = `
      import { writeHeapSnapshot } from "node:v8";
      import { readFileSync, rmSync } from "node:fs";
      import { randomUUID } from "node:crypto";
      const { newId } = await import(process.argv[1]);
      const kept = { newId: newId(), randomUUID: randomUUID() };
      const file = writeHeapSnapshot();
      const snapshot = JSON.parse(readFileSync(file, "utf8"));
      rmSync(file);
      const { node_fields: fields, node_types: [types] } = snapshot.snapshot.meta;
      const flat = new Set();
      for (let i = 0; i < snapshot.nodes.length; i += fields.length) {
        if (types[snapshot.nodes[i]] === "string") flat.add(snapshot.strings[snapshot.nodes[i + 1]]);
      }
      console.log(JSON.stringify({ newId: flat.has(kept.newId), randomUUID: flat.has(kept.randomUUID) }));`;
    const out = execFileSync(resolve("node_modules/.bin/node"), ["--input-type=module", "-e", script, resolve("emulator/ids.ts")], { encoding: "utf8" });
    expect(JSON.parse(out)).toEqual({ newId: true, randomUUID: false });
  });
});

describe("the kept text of a stored document", () => {
  const stored = (name: string) => ({ account_id: "a", collection: "cohorts", doc: { id: "doc-1", name, padding: "x".repeat(80) } });
  const indexOf = () => new ResourceIndex(() => ({ named: [], owners: [] }));

  it("is the document's JSON, the same text each time, for the stored document only", () => {
    const index = indexOf();
    const r = stored("a");
    index.change("cohorts/doc-1", r, undefined);
    const text = index.textOf(r.doc);
    expect(text).toBe(JSON.stringify(r.doc));
    expect(index.textOf(r.doc)).toBe(text);
    // A copy is not what is stored: its text is not kept.
    expect(index.textOf({ ...r.doc })).toBeUndefined();
  });

  it("goes with the document when it is replaced or removed", () => {
    const index = indexOf();
    const before = stored("before");
    index.change("cohorts/doc-1", before, undefined);
    index.textOf(before.doc);
    const after = stored("after");
    index.change("cohorts/doc-1", after, before);
    expect(index.textOf(before.doc)).toBeUndefined();
    expect(index.textOf(after.doc)).toBe(JSON.stringify(after.doc));
    index.change("cohorts/doc-1", undefined, after);
    expect(index.textOf(after.doc)).toBeUndefined();
  });
});

describe("a document answered, then changed", () => {
  let api: Client;
  beforeAll(async () => {
    api = await emulator();
  });
  afterAll(() => api.close());

  it("is answered as changed, in a list and alone", async () => {
    const id = String((await api.post<Json>("/v1/cohorts", { name: "before" })).body.id);
    expect((await api.get<Json[]>(`/v1/cohorts?ids=${id}`)).body.map((c) => c.name)).toEqual(["before"]);
    expect((await api.patch(`/v1/cohorts/${id}`, { name: "after" })).status).toBe(200);
    expect((await api.get<Json[]>(`/v1/cohorts?ids=${id}`)).body.map((c) => c.name)).toEqual(["after"]);
    expect((await api.get<Json>(`/v1/cohorts/${id}`)).body.name).toBe("after");
  });
});
