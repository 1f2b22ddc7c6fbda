// The default provider is named as Pulumi names it (`default_<version>`), so a state moves between the local engine
// and the Pulumi CLI without a provider change; a state written when the engine named it `default` moves over to
// the new name on the next up with nothing replaced, updated or sent.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { defaultProviderName } from "../../provider/engine/providers.ts";
import { SECRET_SIG, SIG_KEY } from "../../provider/protocol/values.ts";
import { Snapshot } from "../../provider/engine/snapshot.ts";
import { nativePrograms, PASSPHRASE, writes } from "./native-programs.ts";

describe("defaultProviderName", () => {
  // The cases of pulumi/pulumi pkg/resource/deploy/providers/provider_test.go.
  it.each([
    [{}, "default"],
    [{ version: "0.18.1" }, "default_0_18_1"],
    [{ version: "0.17.7-dev.1555435978+gb7030aa4.dirty" }, "default_0_17_7_dev_1555435978_gb7030aa4_dirty"],
    [{ version: "0.18.1", pluginDownloadURL: "pulumi.com/pkg" }, "default_0_18_1_pulumi.com/pkg"],
    [{ version: "0.17.7-dev.1555435978+gb7030aa4.dirty", pluginDownloadURL: "company.com/artifact-storage/pkg" }, "default_0_17_7_dev_1555435978_gb7030aa4_dirty_company.com/artifact-storage/pkg"],
    [{ pluginDownloadURL: "company.com/" }, "default_company.com"],
    [{ version: "0.1.0", pluginDownloadURL: "https://example.com/releases/" }, "default_0_1_0_https_/example.com/releases"],
  ])("%j -> %s", (asked, name) => {
    expect(defaultProviderName(asked)).toBe(name);
  });
});

const world = nativePrograms();
const PROGRAM = `import * as audience from "pulumi-audience/native";
const leads = audience.getCohortOutput({ name: "Leads" });
export const scopeId = new audience.Scope("pipeline", { name: "Pipeline", population: { cohortIds: [leads.id] }, payload: { cohortIds: [leads.id] }, preview: true }).id;
`;

interface StoredState {
  deployment: { resources: { urn: string; id?: string; provider?: string }[] };
}

describe("the default provider's name", { timeout: 240_000 }, () => {
  it("is default_0_1_0, and a state that names it `default` moves to it with no change shown or sent", async () => {
    const { apiKey } = await world.account("default-provider");
    const dir = world.program("default-provider", { index: PROGRAM });
    const run = world.runner(dir, apiKey);

    const up = await run("up");
    const state = JSON.parse(readFileSync(up.statePath, "utf8")) as StoredState;
    const provider = state.deployment.resources.find((r) => r.urn.endsWith("::pulumi:providers:audience::default_0_1_0"));
    expect(provider?.id).toBeDefined();
    const scope = state.deployment.resources.find((r) => r.urn.endsWith("::pipeline"));
    expect(scope?.provider).toBe(`${provider!.urn}::${provider!.id}`);

    // The state as this engine wrote it before: the provider named `default` (imported, as `audience stack import` does).
    const exported = (await Snapshot.load(up.statePath, PASSPHRASE)).export({ showSecrets: false });
    const legacy = await Snapshot.parse(exported.replaceAll("::default_0_1_0", "::default"), { path: up.statePath, passphrase: PASSPHRASE });
    await legacy.save();
    await world.requests();
    const preview = await run("preview");
    expect(preview.steps.filter((s) => s.op !== "same").map((s) => `${s.op} ${s.urn}`)).toEqual([]);

    const again = await run("up");
    expect(again.steps.filter((s) => s.op !== "same").map((s) => `${s.op} ${s.urn}`)).toEqual([]);
    expect(writes(await world.requests())).toEqual([]);
    const moved = JSON.parse(readFileSync(again.statePath, "utf8")) as StoredState;
    const providers = moved.deployment.resources.filter((r) => r.urn.includes("::pulumi:providers:audience::"));
    expect(providers.map((r) => [r.urn.split("::").pop(), r.id])).toEqual([["default_0_1_0", provider!.id]]);
    expect(moved.deployment.resources.find((r) => r.urn.endsWith("::pipeline"))?.provider).toBe(`${provider!.urn}::${provider!.id}`);
    expect(JSON.stringify(moved)).not.toMatch(/::default::|::default"/);

    await run("destroy");
    expect(await world.list(apiKey, "scopes")).toEqual([]);
  });

  it("records its inputs as the Pulumi CLI does, which `pulumi refresh` configures it from: its package's config (secrets encrypted) and the version", async () => {
    const { apiKey } = await world.account("default-provider-inputs");
    const dir = world.program("default-provider-inputs", { index: PROGRAM });
    const baseUrl = `${world.emulator.url}/v1`;
    const up = await world.runner(dir, "")("up", { config: { "audience:baseUrl": baseUrl, unrelated: "x" }, secrets: { "audience:apiKey": apiKey } });
    const text = readFileSync(up.statePath, "utf8");
    expect(text).not.toContain(apiKey);
    const state = JSON.parse(text) as { deployment: { resources: { urn: string; inputs?: Record<string, unknown>; outputs?: Record<string, unknown> }[] } };
    const provider = state.deployment.resources.find((r) => r.urn.endsWith("::pulumi:providers:audience::default_0_1_0"))!;
    const recorded = { apiKey: { [SIG_KEY]: SECRET_SIG, ciphertext: expect.any(String) }, baseUrl, version: "0.1.0" };
    expect(provider.inputs).toEqual(recorded);
    expect(provider.outputs).toEqual(recorded);

    await world.requests();
    const again = await world.runner(dir, "")("up", { config: { "audience:baseUrl": baseUrl, unrelated: "x" }, secrets: { "audience:apiKey": apiKey } });
    expect(again.steps.filter((s) => s.op !== "same").map((s) => `${s.op} ${s.urn}`)).toEqual([]);
    expect(writes(await world.requests())).toEqual([]);
  });
});
