// What the emulator keeps per document: ids as flat strings, and the text of each document answered.
import { execFileSync } from "node:child_process";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../../emulator/ids.ts";
import { TextCache } from "../../emulator/text-cache.ts";
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

describe("TextCache", () => {
  const doc = (n: number) => ({ id: `doc-${n}`, padding: "x".repeat(80) });

  it("answers a document's JSON, the same text again, however many documents were answered since", () => {
    const cache = new TextCache();
    const a = doc(1);
    const text = cache.textOf(a);
    expect(text).toBe(JSON.stringify(a));
    for (let n = 2; n < 10_000; n++) cache.textOf(doc(n));
    expect(cache.textOf(a)).toBe(text);
    expect(cache.has(a)).toBe(true);
    expect(cache.chars).toBe(Array.from({ length: 9_999 }, (_, i) => JSON.stringify(doc(i + 1)).length).reduce((x, y) => x + y));
  });

  it("drops a forgotten document's text", () => {
    const cache = new TextCache();
    const a = doc(1);
    cache.textOf(a);
    cache.forget(a);
    expect(cache.has(a)).toBe(false);
    expect(cache.chars).toBe(0);
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
