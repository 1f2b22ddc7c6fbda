// Several accounts the Pulumi way: one plugin per provider, each configured with its account, as the engine
// configures an explicit `pulumi:providers:audience` (its inputs sent as `args`, the key a secret).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Json } from "../emulator/helpers.ts";
import { Plugin, secret, startWorld, type World } from "./harness.ts";

let world: World;
let north: Plugin;
let northKey: string;

beforeAll(async () => {
  world = await startWorld();
  northKey = (await world.control.createAccount({ name: "north" })).api_key;
  north = await Plugin.start();
  await north.configureArgs({ apiKey: secret(northKey), baseUrl: `${world.emulator.url}/v1` });
}, 60_000);

afterAll(async () => {
  await north?.close();
  await world?.close();
});

describe("an explicit provider per account", () => {
  it("creates and reads in its own account only", async () => {
    const type = "audience:index:Cohort";
    const inputs = (await north.check(type, {}, { name: "North spenders", streamName: "transactions", streamConditions: [{ property: "amount", _gte: 100 }] })).inputs;
    const made = await north.create(type, inputs);
    const names = async (key?: string) => (await world.api.get<Json[]>("/v1/cohorts", key)).body.map((c) => c.name);
    expect(await names(northKey)).toContain("North spenders");
    expect(await names()).not.toContain("North spenders");
    expect((await north.read(type, made.id)).id).toBe(made.id);
    await expect(world.plugin.read(type, made.id)).rejects.toThrow(/belongs to another account/);
  });

  it("answers lookups from its own account", async () => {
    const northLeads = await north.invoke("audience:index:getCohort", { name: "Leads" });
    const defaultLeads = await world.plugin.invoke("audience:index:getCohort", { name: "Leads" });
    expect(northLeads.id).not.toBe(defaultLeads.id);
  });

  it("checks a new resource's adoptId as the dynamic face does: one the service manages is refused in check", async () => {
    const cohorts = (await world.api.get<Json[]>("/v1/cohorts")).body;
    const classic = cohorts.find((c) => c.managed === true)!;
    const checked = await world.plugin.check("audience:index:Cohort", {}, { name: String(classic.name), adoptId: String(classic.id) });
    expect(checked.failures).toEqual([{ property: "adoptId", reason: expect.stringContaining(`Cohort ${String(classic.id)} is managed by the service and read-only`) }]);
  });

  it("replaces what a provider holds when its key reaches another account, not when it reaches the same one anew", async () => {
    const baseUrl = `${world.emulator.url}/v1`;
    const home = { apiKey: world.emulator.apiKey, baseUrl };
    // A resource moved from the default provider to north's (or the key changed to north's): created there, deleted here.
    expect(await north.diffConfig(home, { apiKey: northKey, baseUrl })).toMatchObject({ changes: "some", replaces: ["apiKey"] });
    expect(await north.diffConfig({ accounts: { a: home } }, { accounts: { a: { apiKey: northKey, baseUrl } } })).toMatchObject({ replaces: ["accounts"] });
    // The same account at another URL, or under a key the service no longer answers (rotated): nothing moves.
    expect(await north.diffConfig(home, { ...home, baseUrl: `${world.emulator.url}/v1/` })).toMatchObject({ changes: "some", replaces: [] });
    expect(await north.diffConfig({ apiKey: "aud_revoked", baseUrl }, { apiKey: northKey, baseUrl })).toMatchObject({ changes: "some", replaces: [] });
  });
});
