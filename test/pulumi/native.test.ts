// Native resources (`pulumi-audience/native`) through the real `pulumi` CLI, the `audience` plugin found each
// documented way: a path under Pulumi.yaml `plugins: providers:` (the installed package) and `pulumi plugin install
// resource audience <v> --file <release folder>`; the CLI runs the folder's `pulumi-resource-audience`. The default
// provider (named as the CLI names it: its version and the download URL the language host reports from package.json's
// `pulumi.server`), an explicit provider and a named account manage one resource each, in three accounts.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { defaultProviderName } from "../../provider/engine/providers.ts";
import { PLUGIN_DOWNLOAD_URL } from "../../provider/plugin/manifest.ts";
import { packPlugin } from "../../scripts/plugin-pack.ts";
import { PLUGIN_IN_PACKAGE, programFolder, pulumiCli, pulumiStack, type PulumiStack, skipReason } from "./cli.ts";
import { emulatedService } from "./emulated.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
const cli = pulumiCli();
const service = emulatedService();
const { createAccount, takeWrites } = service;

async function scopes(apiKey: string): Promise<{ id: string; name: string }[]> {
  const res = await service.get(apiKey, "scopes");
  expect(res.status).toBe(200);
  return (await res.json()) as { id: string; name: string }[];
}

const PROGRAM = `import * as pulumi from "@pulumi/pulumi";
import * as audience from "pulumi-audience/native";

const config = new pulumi.Config();
const scopeArgs = (name: string, leads: pulumi.Output<{ id: string }>) => ({ name, population: { cohortIds: [leads.id] }, payload: { cohortIds: [leads.id] }, preview: true });

// The default provider: audience:apiKey from stack config, the base URL from the environment.
export const defaultScope = new audience.Scope("pipeline", scopeArgs("Pipeline", audience.getCohortOutput({ name: "Leads" }))).id;

// An explicit provider for a second account.
const north = new audience.Provider("north", { apiKey: config.requireSecret("northKey"), baseUrl: process.env["AUDIENCE_BASE_URL"] });
export const northScope = new audience.Scope("north-pipeline", scopeArgs("North pipeline", audience.getCohortOutput({ name: "Leads" }, { provider: north })), { provider: north }).id;

// A named account of audience:accounts, through the default provider.
export const southScope = new audience.Scope("south-pipeline", { ...scopeArgs("South pipeline", audience.getCohortOutput({ name: "Leads", account: "south" })), account: "south" }).id;
`;

/** A program folder of PROGRAM, whose Pulumi.yaml has `extra` appended. */
const programSource = (name: string, extra = "") => programFolder({ "Pulumi.yaml": `name: ${name}\nruntime: nodejs\nmain: index.ts\n${extra}`, "index.ts": PROGRAM });

async function configure(stack: PulumiStack, keys: { apiKey: string; northKey: string; southKey: string }): Promise<void> {
  await stack.config({ "audience:apiKey": keys.apiKey, northKey: keys.northKey }, true);
  await stack.config({ "audience:accounts": JSON.stringify({ south: { apiKey: keys.southKey, baseUrl: service.baseUrl() } }) }, true);
}

describe(`native resources through pulumi, the plugin a path under Pulumi.yaml plugins${skipReason()}`, { timeout: 400_000 }, () => {
  if (!cli.dir) return;
  let stack: PulumiStack;
  const keys = { apiKey: "", northKey: "", southKey: "" };

  it("go up in three accounts (the default provider, an explicit one, a named account); nothing changes after", async () => {
    keys.apiKey = await createAccount("native-default");
    keys.northKey = await createAccount("native-north");
    keys.southKey = await createAccount("native-south");
    stack = await pulumiStack({
      program: programSource("native-path", PLUGIN_IN_PACKAGE),
      env: { AUDIENCE_BASE_URL: service.baseUrl() },
    });
    await configure(stack, keys);
    const up = await stack.must(["up", "--yes"]);
    expect(up.output).toMatch(/\+ 5 created/);
    const outputs = await stack.outputs();
    expect((await scopes(keys.apiKey)).map((s) => s.id)).toEqual([outputs["defaultScope"]]);
    expect((await scopes(keys.northKey)).map((s) => s.id)).toEqual([outputs["northScope"]]);
    expect((await scopes(keys.southKey)).map((s) => s.id)).toEqual([outputs["southScope"]]);
    const resources = (await stack.exported()).deployment.resources ?? [];
    const providers = resources.filter((r) => r.type === "pulumi:providers:audience").map((r) => r.urn.split("::").pop());
    // `github://api.github.com/pulumi-audience/pulumi-audience` as the CLI writes a URL into a name.
    expect(PLUGIN_DOWNLOAD_URL).toBe("github://api.github.com/pulumi-audience/pulumi-audience");
    const defaultName = `default_${VERSION.replaceAll(".", "_")}_github_/api.github.com/pulumi-audience/pulumi-audience`;
    expect(providers.sort()).toEqual([defaultName, "north"]);
    // The local engine's name for it.
    expect(defaultProviderName({ version: VERSION, pluginDownloadURL: PLUGIN_DOWNLOAD_URL })).toBe(defaultName);
    expect(resources.filter((r) => r.type === "audience:index:Scope")).toHaveLength(3);

    await takeWrites();
    await stack.must(["preview", "--expect-no-changes"]);
    await stack.must(["refresh", "--yes", "--skip-preview", "--expect-no-changes"]);
    await stack.must(["up", "--yes", "--skip-preview", "--expect-no-changes"]);
    expect(await takeWrites()).toEqual([]);
  });

  it("destroy leaves nothing in any account", async () => {
    await stack.must(["destroy", "--yes", "--skip-preview"]);
    for (const key of Object.values(keys)) expect(await scopes(key)).toEqual([]);
  });
});

describe(`the plugin installed with pulumi plugin install --file <release folder>${skipReason()}`, { timeout: 600_000 }, () => {
  if (!cli.dir) return;
  it("serves the program: preview and up find it in PULUMI_HOME", async () => {
    const release = mkdtempSync(join(tmpdir(), "native-release-"));
    onTestFinished(() => rmSync(release, { recursive: true, force: true }));
    const { folder } = packPlugin({ out: release, platforms: [] });
    const keys = { apiKey: await createAccount("installed-default"), northKey: await createAccount("installed-north"), southKey: await createAccount("installed-south") };
    const stack = await pulumiStack({ program: programSource("native-installed"), env: { AUDIENCE_BASE_URL: service.baseUrl() } });
    await configure(stack, keys);
    // The CLI runs `npm install` in the installed copy: from npm's cache, as a runner with a warm cache does.
    await stack.must(["plugin", "install", "resource", "audience", VERSION, "--file", folder], { env: { npm_config_prefer_offline: "true" } });
    const listed = await stack.must(["plugin", "ls"]);
    expect(listed.output).toMatch(new RegExp(`audience\\s+resource\\s+${VERSION.replaceAll(".", "\\.")}`));
    const up = await stack.must(["up", "--yes"]);
    expect(up.output).toMatch(/\+ 5 created/);
    await stack.must(["preview", "--expect-no-changes"]);
    await stack.must(["destroy", "--yes"]);
  });
});
