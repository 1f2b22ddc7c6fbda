// A resource made by the dynamic provider, taken over by the plugin as the engine does after the program switches
// to `pulumi-audience/native` (alias from the dynamic type): the plugin's Check tolerates the recorded
// `__provider` and `__kind`, DiffConfig asks no replacement, Diff finds nothing to change, Read keeps it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { providerModule } from "../../provider/runtime/resources/shim.ts";
import { startProviderHost, type ProviderHost } from "../provider/harness.ts";
import { startWorld, type World } from "./harness.ts";

let world: World;
let host: ProviderHost;

beforeAll(async () => {
  world = await startWorld();
  host = await startProviderHost();
  await host.configure({ "audience:apiKey": world.emulator.apiKey, "audience:baseUrl": `${world.emulator.url}/v1` });
}, 60_000);

afterAll(async () => {
  await host?.close();
  await world?.close();
});

describe("a stack made in dynamic mode, moved to native mode", () => {
  it("keeps each resource: no replacement, no change, nothing sent", async () => {
    const cohorts = (await world.api.get<{ id: string; name: string }[]>("/v1/cohorts")).body;
    const leads = cohorts.find((c) => c.name === "Leads")!.id;
    const program = { name: "Pipeline", population: { cohortIds: [leads] }, payload: { cohortIds: [leads] }, preview: true };
    const dynamicInputs = (await host.check({}, { ...program, __provider: providerModule("scopes") })).inputs;
    const made = await host.create(dynamicInputs);
    expect(made.properties).toHaveProperty("__provider");

    const { plugin } = world;
    const log = () => world.control.requests();
    const since = Math.max(...(await log()).map((r) => r.seq));
    const type = "audience:index:Scope";
    // The provider reference changes from the dynamic provider to the audience one: the engine asks DiffConfig.
    const config = await plugin.diffConfig({}, { apiKey: world.emulator.apiKey, baseUrl: `${world.emulator.url}/v1` });
    expect(config.replaces).toEqual([]);
    const checked = await plugin.check(type, dynamicInputs, program);
    expect(checked.failures).toEqual([]);
    const diff = await plugin.diff(type, made.id, made.properties, checked.inputs);
    expect(diff).toMatchObject({ changes: "none", replaces: [], detailed: {} });
    const read = await plugin.read(type, made.id, made.properties, dynamicInputs);
    expect(read.id).toBe(made.id);
    expect(read.properties).not.toHaveProperty("__provider");
    expect(read.inputs).toEqual(checked.inputs);
    const writes = (await log()).filter((r) => r.seq > since && r.method !== "GET");
    expect(writes).toEqual([]);
  });
});
