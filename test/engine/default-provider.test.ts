// The default provider is named as Pulumi names it (`default_<version>_<download URL>`, the URL the language host
// reports from package.json's `pulumi.server`), so a state moves between the local engine and the Pulumi CLI without
// a provider change; a state written when the engine named it `default`, or `default_<version>` as Pulumi's older
// Node.js language host had it named, moves over to the new name on the next up with nothing replaced, updated or sent.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { defaultProviderName } from "../../provider/engine/providers.ts";
import { PLUGIN_DOWNLOAD_URL } from "../../provider/plugin/manifest.ts";
import { SECRET_SIG, SIG_KEY } from "../../provider/protocol/values.ts";
import { Snapshot } from "../../provider/engine/snapshot.ts";
import { DEFAULT_PROVIDER, nativePrograms, PASSPHRASE, writes } from "./native-programs.ts";

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
  it("is the version's and the download URL's, as the CLI names it", () => {
    expect(defaultProviderName({ version: "0.1.0", pluginDownloadURL: PLUGIN_DOWNLOAD_URL })).toBe(DEFAULT_PROVIDER);
  });

  it.each(["default", "default_0_1_0"])("and a state that names it %s moves to it with no change shown or sent", async (earlier) => {
    const { apiKey } = await world.account(`default-provider-${earlier}`);
    const dir = world.program(`default-provider-${earlier}`, { index: PROGRAM });
    const run = world.runner(dir, apiKey);

    const up = await run("up");
    const state = JSON.parse(readFileSync(up.statePath, "utf8")) as StoredState;
    const provider = state.deployment.resources.find((r) => r.urn.endsWith(`::pulumi:providers:audience::${DEFAULT_PROVIDER}`));
    expect(provider?.id).toBeDefined();
    const scope = state.deployment.resources.find((r) => r.urn.endsWith("::pipeline"));
    expect(scope?.provider).toBe(`${provider!.urn}::${provider!.id}`);

    // The state as it was written before (imported, as `audience stack import` does).
    const exported = (await Snapshot.load(up.statePath, PASSPHRASE)).export({ showSecrets: false });
    const legacy = await Snapshot.parse(exported.replaceAll(`::${DEFAULT_PROVIDER}`, `::${earlier}`), { path: up.statePath, passphrase: PASSPHRASE });
    await legacy.save();
    await world.requests();
    const preview = await run("preview");
    expect(preview.steps.filter((s) => s.op !== "same").map((s) => `${s.op} ${s.urn}`)).toEqual([]);

    const again = await run("up");
    expect(again.steps.filter((s) => s.op !== "same").map((s) => `${s.op} ${s.urn}`)).toEqual([]);
    expect(writes(await world.requests())).toEqual([]);
    const moved = JSON.parse(readFileSync(again.statePath, "utf8")) as StoredState;
    const providers = moved.deployment.resources.filter((r) => r.urn.includes("::pulumi:providers:audience::"));
    expect(providers.map((r) => [r.urn.split("::").pop(), r.id])).toEqual([[DEFAULT_PROVIDER, provider!.id]]);
    expect(moved.deployment.resources.find((r) => r.urn.endsWith("::pipeline"))?.provider).toBe(`${provider!.urn}::${provider!.id}`);
    expect(JSON.stringify(moved)).not.toContain(`::${earlier}::`);

    await run("destroy");
    expect(await world.list(apiKey, "scopes")).toEqual([]);
  });

  it("records its inputs as the Pulumi CLI does, which `pulumi refresh` configures it from: its package's config (secrets encrypted), the version and, in the inputs, the URL", async () => {
    const { apiKey } = await world.account("default-provider-inputs");
    const dir = world.program("default-provider-inputs", { index: PROGRAM });
    const baseUrl = `${world.emulator.url}/v1`;
    const up = await world.runner(dir, "")("up", { config: { "audience:baseUrl": baseUrl, unrelated: "x" }, secrets: { "audience:apiKey": apiKey } });
    const text = readFileSync(up.statePath, "utf8");
    expect(text).not.toContain(apiKey);
    const state = JSON.parse(text) as { deployment: { resources: { urn: string; inputs?: Record<string, unknown>; outputs?: Record<string, unknown> }[] } };
    const provider = state.deployment.resources.find((r) => r.urn.endsWith(`::pulumi:providers:audience::${DEFAULT_PROVIDER}`))!;
    const recorded = { apiKey: { [SIG_KEY]: SECRET_SIG, ciphertext: expect.any(String) }, baseUrl, version: "0.1.0" };
    expect(provider.inputs).toEqual({ __internal: { pluginDownloadURL: PLUGIN_DOWNLOAD_URL }, ...recorded });
    expect(provider.outputs).toEqual(recorded);

    await world.requests();
    const again = await world.runner(dir, "")("up", { config: { "audience:baseUrl": baseUrl, unrelated: "x" }, secrets: { "audience:apiKey": apiKey } });
    expect(again.steps.filter((s) => s.op !== "same").map((s) => `${s.op} ${s.urn}`)).toEqual([]);
    expect(writes(await world.requests())).toEqual([]);
  });
});
