// The core is handed its family modules: what it does beyond the contract comes from them, and nothing else.
import type { Collection } from "pulumi-audience/sdk/contract";
import { describe, expect, it } from "vitest";
import { createApp } from "../../emulator/app.ts";
import { FAMILIES } from "../../emulator/families/index.ts";
import type { EmulatorFamily } from "../../emulator/family.ts";
import { FamilyRegistry } from "../../emulator/registry.ts";

async function cohortsOf(families: readonly EmulatorFamily[]): Promise<unknown[]> {
  const { app, apiKey, close } = createApp({ families });
  try {
    const reply = await app.inject({ method: "GET", url: "/v1/cohorts", headers: { authorization: `Bearer ${apiKey}` } });
    expect(reply.statusCode).toBe(200);
    return reply.json<{ name: string }[]>().map((c) => c.name);
  } finally {
    await close();
  }
}

describe("family modules", () => {
  it("are what the core does beyond the contract: without the cohort module, no account starts with classic cohorts", async () => {
    expect(await cohortsOf(FAMILIES)).toEqual(["Leads", "Customers"]);
    expect(await cohortsOf(FAMILIES.filter((f) => f.collection !== "cohorts"))).toEqual([]);
  });

  it("serve their own routes only when handed in, and the generic ones stay", async () => {
    const { app, apiKey, close } = createApp({ families: [] });
    try {
      const headers = { authorization: `Bearer ${apiKey}` };
      expect((await app.inject({ method: "GET", url: "/traits.csv", headers })).statusCode).toBe(404);
      expect((await app.inject({ method: "GET", url: "/traits", headers })).statusCode).toBe(200);
      const paths = Object.keys((await app.inject({ method: "GET", url: "/openapi.json" })).json<{ paths: object }>().paths);
      expect(paths).toContain("/traits/{id}");
      expect(paths).not.toContain("/traits.csv");
    } finally {
      await close();
    }
  });

  it("each name a family of the contract, once", () => {
    expect(() => new FamilyRegistry([{ collection: "widgets" as Collection }])).toThrow(/names widgets, which the contract does not have/);
    expect(() => new FamilyRegistry([{ collection: "scopes" }, { collection: "scopes" }])).toThrow(/Two emulator family modules name scopes/);
    expect(new FamilyRegistry(FAMILIES).all().filter((f) => Object.keys(f.emulator).length > 1).map((f) => f.collection).sort())
      .toEqual(FAMILIES.map((f) => f.collection).sort());
  });
});
