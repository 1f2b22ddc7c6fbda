// The layer rule of eslint.config.js: each layer's files may import only the layers below it (and, inside the contract
// and the emulator, each floor only the floors below it), whether the import is written as a relative path or as the
// package's own name. Checked on small files linted in place.
import { ESLint } from "eslint";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
let eslint: ESLint;

beforeAll(() => {
  eslint = new ESLint({ cwd: ROOT });
});

/** The layer-rule messages for a file at `path` (relative to the repository) that imports `name` from `source`. */
async function refusals(path: string, source: string, name = "x"): Promise<string[]> {
  const [result] = await eslint.lintText(`import { ${name} } from ${JSON.stringify(source)};\nexport { ${name} };\n`, { filePath: `${ROOT}${path}` });
  return (result?.messages ?? []).filter((m) => m.ruleId === "no-restricted-imports").map((m) => m.message);
}

describe("layer rule", () => {
  it.each([
    ["provider/runtime/lifecycle/probe.ts", "../../engine/deployment.ts", /provider runtime .* not the engine/],
    ["provider/runtime/families/probe.ts", "../../cli/main.ts", /provider runtime/],
    ["provider/runtime/probe.ts", "pulumi-audience/emulator", /provider runtime/],
    ["provider/runtime/resources/probe.ts", "pulumi-audience", /provider runtime/],
    ["sdk/contract/probe.ts", "../../provider/runtime/generated/dynamic-face.ts", /sdk\/ is the bottom layer/],
    ["sdk/client/probe.ts", "pulumi-audience/provider", /sdk\/ is the bottom layer/],
    ["sdk/probe.ts", "../emulator/index.ts", /sdk\/ is the bottom layer/],
    ["provider/engine/probe.ts", "../cli/run.ts", /engine .* never the CLI/],
    ["emulator/routes/probe.ts", "../../provider/runtime/markers.ts", /emulator depends on the sdk only/],
    ["emulator/probe.ts", "pulumi-audience", /emulator depends on the sdk only/],
    ["emulator/probe.ts", "pulumi-audience/provider", /emulator depends on the sdk only/],
    ["bench/probe.ts", "../test/client/loopback.ts", /nothing outside test\/ imports test\//],
    ["provider/engine/probe.ts", "../../test/provider/harness.ts", /never the CLI built on it or tests/],
    ["provider/engine/probe.ts", "pulumi-audience/sdk/contract", /engine imports the contract's module .* never an index/],
    ["provider/engine/probe.ts", "../../sdk/contract/index.ts", /never an index that builds every family's schemas/],
    ["provider/engine/probe.ts", "pulumi-audience/sdk", /never an index/],
    ["provider/engine/resource-calls.ts", "./provider-host.ts", /engine's ground floor .* imports nothing of the engine/],
    ["provider/engine/plugin-launch.ts", "./extension.ts", /engine's ground floor/],
    ["provider/plugin/probe.ts", "../cli/main.ts", /provider plugin/],
    ["provider/plugin/probe.ts", "pulumi-audience/emulator", /provider plugin/],
    ["provider/plugin/probe.ts", "../engine/plugin-host.ts", /provider plugin .* never the engine/],
    ["provider/native/probe.ts", "../engine/deployment.ts", /native resources/],
    ["provider/native/probe.ts", "pulumi-audience", /native resources/],
    ["provider/protocol/probe.ts", "../runtime/markers.ts", /protocol kit .* imports nothing of this package/],
    ["provider/protocol/probe.ts", "../plugin/server.ts", /protocol kit/],
    ["provider/protocol/probe.ts", "../engine/deployment.ts", /protocol kit/],
    ["provider/protocol/probe.ts", "pulumi-audience/sdk/contract", /protocol kit/],
    ["policy/probe.ts", "../provider/plugin/server.ts", /policy pack/],
    ["policy/rules/probe.ts", "../../provider/cli/main.ts", /policy pack/],
    ["policy/probe.ts", "pulumi-audience", /policy pack/],
  ])("%s may not import %s", async (path, source, message) => {
    const found = await refusals(path, source);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(message);
  });

  it.each([
    ["provider/runtime/lifecycle/probe.ts", "../markers.ts"],
    ["provider/runtime/lifecycle/probe.ts", "pulumi-audience/sdk/contract"],
    ["provider/engine/probe.ts", "../protocol/markers.ts"],
    ["provider/engine/probe.ts", "../../sdk/contract/merge-patch.ts"],
    ["provider/plugin/probe.ts", "../protocol/values.ts"],
    ["provider/runtime/lifecycle/probe.ts", "../../protocol/markers.ts"],
    ["provider/native/probe.ts", "../protocol/values.ts"],
    ["provider/cli/probe.ts", "../runtime/lifecycle/controls.ts"],
    ["provider/cli/probe.ts", "../engine/index.ts"],
    ["provider/plugin/probe.ts", "../runtime/lifecycle/diff.ts"],
    ["provider/engine/probe.ts", "../protocol/launch.ts"],
    ["provider/engine/resource-calls.ts", "../protocol/values.ts"],
    ["provider/engine/extension.ts", "./resource-calls.ts"],
    ["provider/native/probe.ts", "../plugin/tokens.ts"],
    ["provider/cli/probe.ts", "pulumi-audience/emulator"],
    ["emulator/probe.ts", "pulumi-audience/sdk/contract"],
    ["emulator/index.ts", "./families/index.ts"],
    ["emulator/families/probe.ts", "../state.ts"],
    ["emulator/routes/probe.ts", "../registry.ts"],
    ["emulator/state/probe.ts", "../model.ts"],
    ["emulator/state.ts", "./state/resources.ts"],
    ["emulator/model.ts", "pulumi-audience/sdk/contract"],
    ["sdk/contract/probe.ts", "./registry.ts"],
    ["provider/runtime/resources/probe.ts", "../generated/registrations.ts"],
    ["sdk/client/probe.ts", "../contract/index.ts"],
    ["test/provider/probe.test.ts", "./harness.ts"],
    ["test/probe.test.ts", "../provider/engine/deployment.ts"],
    ["policy/probe.ts", "../sdk/contract/index.ts"],
    ["policy/rules/probe.ts", "../../provider/runtime/markers.ts"],
  ])("%s may import %s", async (path, source) => {
    expect(await refusals(path, source)).toEqual([]);
  });

  // What this package adds (adoption, a resumed create's start, step timeouts, warnings) reaches the engine through
  // the extension the CLI hands it, never as markers the engine knows.
  it.each([
    ["../runtime/lifecycle/controls.ts", "KIND_KEY"],
    ["../runtime/lifecycle/index.ts", "CREATE_STARTED_KEY"],
    ["../runtime/markers.ts", "PACKAGE"],
    ["../runtime/markers.ts", "DYNAMIC_TYPE_PREFIX"],
    ["../plugin/tokens.ts", "PROVIDER_TYPE"],
    ["../runtime/resources/shim.ts", "isPackageShim"],
    ["../plugin/server.ts", "createPluginServer"],
    ["../native/resource.ts", "nativeClass"],
    ["pulumi-audience/provider", "createLifecycle"],
  ])("the engine may not import %s's %s", async (source, name) => {
    const found = await refusals("provider/engine/probe.ts", source, name);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/the engine is generic/);
  });

  it("the engine's files name none of this package's markers", () => {
    const dir = `${ROOT}provider/engine/`;
    const markers = /__kind|__createStartedAt|__timeoutSeconds|adoptId\b|"warning: "/;
    const named = readdirSync(dir).filter((f) => f.endsWith(".ts") && markers.test(readFileSync(`${dir}${f}`, "utf8")));
    expect(named).toEqual([]);
  });
});
