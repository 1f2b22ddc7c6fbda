// How often a request writes a resource: a create stores its document once, as answered (built, when its build runs
// at once; at `new`, when it builds later; as it is, when its family does not build).
import { describe, expect, it } from "vitest";
import { createApp } from "../../emulator/app.ts";
import type { BuildSettings } from "../../emulator/builds.ts";
import { FAMILIES } from "../../emulator/families/index.ts";
import type { StoredResource } from "../../emulator/model.ts";

/** Creates one resource; answers the created document and every stored version of it, in order. */
async function created(url: string, payload: object, builds?: BuildSettings): Promise<{ body: Record<string, unknown>; writes: StoredResource[] }> {
  const { app, ctx, apiKey, close } = createApp({ families: FAMILIES, ...(builds ? { builds } : {}) });
  try {
    const writes: StoredResource[] = [];
    ctx.state.store.watch("resource", (_key, value) => {
      if (value !== undefined) writes.push(value as StoredResource);
    });
    const reply = await app.inject({ method: "POST", url, headers: { authorization: `Bearer ${apiKey}` }, payload });
    expect(reply.statusCode, reply.body).toBeLessThan(300);
    const body = reply.json<Record<string, unknown>>();
    return { body, writes: writes.filter((w) => w.doc.id === body.id) };
  } finally {
    await close();
  }
}

describe("a create", () => {
  it("built at once stores its document once, built, as it is answered", async () => {
    const { body, writes } = await created("/v1/cohorts", { name: "Buyers" });
    expect(body.status).toBe("ready");
    expect(writes.map((w) => w.doc)).toEqual([body]);
  });

  it("built later stores it once, at new, with its build to run", async () => {
    const { body, writes } = await created("/v1/cohorts", { name: "Buyers" }, { default: "manual" });
    expect(body.status).toBe("new");
    expect(writes.map((w) => [w.doc.status, w.build !== undefined])).toEqual([["new", true]]);
  });

  it("of a family that does not build stores it once, as it is", async () => {
    const { body, writes } = await created("/v1/traits", { name: "Spend" });
    expect(writes.map((w) => w.doc)).toEqual([body]);
  });
});
