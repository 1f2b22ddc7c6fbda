// What the engine passes on to the provider besides inputs, through the local engine: customTimeouts, the stop of a
// run (native and dynamic mode), providers' config checked at plan time by the plugin's CheckConfig and DiffConfig,
// and the start of a create whose outcome stayed unknown. Cohort builds never finish here unless advanced by hand.
import { readFileSync } from "node:fs";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import type { RunResult } from "../../provider/engine/index.ts";
import { createRenderer } from "../../provider/cli/render.ts";
import { Snapshot } from "../../provider/engine/snapshot.ts";
import { DEFAULT_PROVIDER, GIVES_UP_SOON, nativePrograms, PASSPHRASE, writes } from "./native-programs.ts";

const world = nativePrograms({ port: 0, builds: { default: "immediate", cohorts: "manual" } });

interface Recorded {
  type: string;
  id?: string;
  urn: string;
  inputs: Record<string, unknown>;
  customTimeouts?: Record<string, number>;
  initErrors?: string[];
}

function recorded(result: RunResult, name: string): Recorded | undefined {
  const state = JSON.parse(readFileSync(result.statePath, "utf8")) as { deployment: { resources: Recorded[] } };
  return state.deployment.resources.find((r) => r.urn.endsWith(`::${name}`));
}

const failedSteps = (result: RunResult) => result.steps.filter((s) => s.phase === "failed");

/** A program declaring one cohort whose create waits for its build, with these resource options. */
const slowCohort = (module: string, options: string) => `import * as audience from "${module}";
new audience.Cohort("slow", { name: "Slow cohort", streamName: "transactions", minCount: 2, waitFor: "ready" }, ${options});
`;

describe("customTimeouts through the local engine", { timeout: 180_000 }, () => {
  it.each([["native", "pulumi-audience/native"], ["dynamic", "pulumi-audience"]])("end a create waiting for a build at the timeout in %s mode, recorded in state", async (mode, module) => {
    const { apiKey } = await world.account(`timeouts-${mode}`);
    const dir = world.program(`timeouts-${mode}`, { index: slowCohort(module, `{ customTimeouts: { create: "1s", delete: "1m30s" } }`) });
    // Without the timeout the create would wait for the build for waitTimeoutSeconds' default, 30 minutes.
    const up = await world.run(dir, apiKey, "up");
    expect(up.ok).toBe(false);
    expect(up.error).toMatch(/Cohort \S+ is still new after 1s \(customTimeouts\)/);
    const cohort = recorded(up, "slow");
    expect(cohort?.customTimeouts).toEqual({ create: 1, delete: 90 });
    expect(cohort?.initErrors?.[0]).toContain("customTimeouts");
    expect(JSON.stringify(cohort)).not.toContain("__timeoutSeconds");
    expect(await world.list(apiKey, "cohorts")).toEqual(expect.arrayContaining([expect.objectContaining({ id: cohort?.id, name: "Slow cohort" })]));
  });

  it("refuses a timeout that is not a duration, naming the option, before any request", async () => {
    const { apiKey } = await world.account("timeouts-bad");
    const dir = world.program("timeouts-bad", { index: slowCohort("pulumi-audience/native", `{ customTimeouts: { update: "5 minutes" } }`) });
    await world.requests();
    const preview = await world.run(dir, apiKey, "preview");
    expect(preview.ok).toBe(false);
    expect(failedSteps(preview).map((s) => s.error)).toEqual([expect.stringContaining('customTimeouts.update: expected a duration such as "30s"')]);
    expect(writes(await world.requests())).toEqual([]);
  });
});

describe("an up interrupted while the provider waits for a build", { timeout: 180_000 }, () => {
  // Native: the plugin's Cancel; dynamic: the engine serves this package's resources in its process and stops their wait.
  it.each([["native", "pulumi-audience/native"], ["dynamic", "pulumi-audience"]])("ends the wait at once in %s mode, keeps the resource, and the next up finishes it", async (mode, module) => {
    const { apiKey } = await world.account(`cancel-${mode}`);
    const dir = world.program(`cancel-${mode}`, { index: slowCohort(module, "{}") });
    const stop = new AbortController();
    const running = world.run(dir, apiKey, "up", { signal: stop.signal });
    // Stop once the cohort exists in the service, i.e. while its create waits for the build.
    while (!(await world.list<{ name: string }>(apiKey, "cohorts")).some((c) => c.name === "Slow cohort")) await new Promise((resolve) => setTimeout(resolve, 100));
    stop.abort();
    // Without Cancel the run would end only when the wait does, after 30 minutes.
    const stopped = await running;
    expect(stopped.ok).toBe(false);
    expect(stopped.error).toContain("the run was stopped");
    expect(failedSteps(stopped).map((s) => s.error)).toEqual([expect.stringContaining("the wait for its build was cancelled")]);
    const kept = recorded(stopped, "slow");
    expect(kept?.initErrors?.[0]).toContain("cancelled");

    await world.advanceBuilds({ collection: "cohorts", to: "ready" });
    const again = await world.run(dir, apiKey, "up");
    expect(again.ok, again.error).toBe(true);
    expect(again.changes).toEqual({ update: 1, same: 1 });
    expect(recorded(again, "slow")).not.toHaveProperty("initErrors");
    expect((await world.list<{ name: string }>(apiKey, "cohorts")).filter((c) => c.name === "Slow cohort")).toHaveLength(1);
  });
});

/** What a person reads of a run off a terminal: its failed steps' lines and its summary. */
function terminalText(result: RunResult): string {
  const out = new PassThrough();
  const chunks: string[] = [];
  out.on("data", (c: Buffer) => chunks.push(c.toString()));
  const renderer = createRenderer({ out, err: out, tty: false, env: {} });
  for (const step of result.steps) renderer.event(step);
  renderer.summary({ ...result, durationMs: 0 });
  return chunks.join("");
}

/** The result as it was before failures carried their code. */
function withoutCodes({ errorCode: _errorCode, ...result }: RunResult): RunResult {
  return { ...result, steps: result.steps.map(({ code: _code, ...step }) => step) };
}

describe("a failure keeps its kind from the provider to the run's result", { timeout: 180_000 }, () => {
  it.each([["native", "pulumi-audience/native"], ["dynamic", "pulumi-audience"]])("a refused key and a failed build carry distinct codes in %s mode; the terminal text is unchanged", async (mode, module) => {
    const { apiKey } = await world.account(`codes-${mode}`);
    const refusedDir = world.program(`codes-refused-${mode}`, { index: slowCohort(module, "{}") });
    const refused = await world.run(refusedDir, "not-a-key", "up");
    expect(refused.ok).toBe(false);
    if (mode === "native") {
      // The provider's CheckConfig asks the service first: the key is refused in the plan, whose check failures carry
      // no kind over gRPC.
      expect(refused.error).toMatch(/apiKey.*: the service at .* refused the key/);
    } else {
      expect(refused.errorCode).toMatch(/^(INVALID_AUTHORIZATION|MALFORMED_API_KEY|MISSING_API_KEY|EXPIRED_API_KEY)$/);
      expect(failedSteps(refused).map((s) => s.code)).toEqual([refused.errorCode]);
    }

    const builtDir = world.program(`codes-build-${mode}`, { index: slowCohort(module, "{}") });
    const running = world.run(builtDir, apiKey, "up");
    while (!(await world.list<{ name: string }>(apiKey, "cohorts")).some((c) => c.name === "Slow cohort")) await new Promise((resolve) => setTimeout(resolve, 100));
    await world.advanceBuilds({ collection: "cohorts", to: "error", error: "the stream is empty" });
    const failed = await running;
    expect(failed.ok).toBe(false);
    expect(failed.error).toContain("failed to build: the stream is empty");
    expect(failed.errorCode).toBe("BUILD_FAILED");

    for (const result of [refused, failed]) expect(terminalText(result)).toBe(terminalText(withoutCodes(result)));
  });
});

/** A program managing one cohort through an explicit provider given these arguments. */
const explicitProvider = (args: string) => `import * as pulumi from "@pulumi/pulumi";
import * as audience from "pulumi-audience/native";
const config = new pulumi.Config();
const north = new audience.Provider("north", ${args});
new audience.Cohort("cohort", { name: "North cohort", streamName: "transactions", minCount: 2 }, { provider: north });
`;

/** The same cohort through the default provider, configured from the stack's `audience:` config. */
const defaultProvider = `import * as audience from "pulumi-audience/native";
new audience.Cohort("cohort", { name: "Default cohort", streamName: "transactions", minCount: 2 });
`;

describe("a native create whose outcome stayed unknown", { timeout: 180_000 }, () => {
  it("is looked for by the next up, which records what it made instead of creating it again", async () => {
    const { apiKey } = await world.account("lost-create");
    const dir = world.program("lost-create", { index: `import * as audience from "pulumi-audience/native";
new audience.Cohort("lost", { name: "Lost cohort", streamName: "transactions", minCount: 2 });
` });
    await world.control("PUT", "/faults", { rules: [{ method: "POST", path: "/cohorts", status: 503 }] });
    const first = await world.run(dir, apiKey, "up", { env: GIVES_UP_SOON });
    await world.control("DELETE", "/faults");
    expect(first.ok).toBe(false);
    // The create landed after all: an answer the client never saw.
    const landed = await fetch(`${world.emulator.url}/v1/cohorts`, {
      method: "POST", headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Lost cohort", stream_name: "transactions", min_count: 2 }),
    });
    const { id } = (await landed.json()) as { id: string };
    const second = await world.run(dir, apiKey, "up");
    expect(second.ok, second.error).toBe(true);
    expect(recorded(second, "lost")?.id).toBe(id);
    expect((await world.list<{ name: string }>(apiKey, "cohorts")).filter((c) => c.name === "Lost cohort")).toHaveLength(1);
  });
});

/** A cohort of the named account `north`, through the default provider. */
const northAccount = `import * as audience from "pulumi-audience/native";
new audience.Cohort("cohort", { account: "north", name: "North cohort", streamName: "transactions", minCount: 2 });
`;
/** `audience:accounts` naming `north` with these members (the emulator's URL and a key where not given). */
const accounts = (north: Record<string, string>) => ({ "audience:accounts": JSON.stringify({ north }) });

describe("a provider's config, checked at plan time", { timeout: 180_000 }, () => {
  it.each([
    ["a named account without apiKey", northAccount, accounts({ baseUrl: "http://127.0.0.1:9/v1" }), {}, DEFAULT_PROVIDER, "audience:accounts.north.apiKey is missing"],
    ["a named account with an empty apiKey", northAccount, accounts({ apiKey: "", baseUrl: "http://127.0.0.1:9/v1" }), {}, DEFAULT_PROVIDER, "audience:accounts.north.apiKey must not be empty"],
    ["a named account without baseUrl", northAccount, accounts({ apiKey: "k" }), {}, DEFAULT_PROVIDER, "audience:accounts.north.baseUrl is missing"],
    ["a named account whose baseUrl is no URL", northAccount, accounts({ apiKey: "k", baseUrl: "north.example" }), {}, DEFAULT_PROVIDER, "audience:accounts.north.baseUrl must be an http(s) URL"],
    // An explicit provider's settings are its arguments, named as the program gave them.
    ["an explicit provider with a bad baseUrl", explicitProvider(`{ apiKey: config.requireSecret("northKey"), baseUrl: "ftp://north.example" }`), {}, {}, "north", 'baseUrl of provider "north" must be an http(s) URL'],
    ["an explicit provider without apiKey", explicitProvider(`{ baseUrl: config.require("baseUrl") }`), {}, { AUDIENCE_API_KEY: "" }, "north", 'apiKey of provider "north" is missing: give the provider an apiKey (a secret)'],
    ["an explicit provider whose key is refused", explicitProvider(`{ apiKey: pulumi.secret("refused-key"), baseUrl: config.require("baseUrl") }`), {}, {}, "north", 'apiKey of provider "north": the service at'],
    ["the default provider with a bad audience:baseUrl", defaultProvider, { "audience:baseUrl": "ftp://default.example" }, {}, DEFAULT_PROVIDER, "audience:baseUrl must be an http(s) URL"],
    ["the default provider without apiKey", defaultProvider, {}, { AUDIENCE_API_KEY: "" }, DEFAULT_PROVIDER, "audience:apiKey is missing: set it with `pulumi config set --secret audience:apiKey <KEY>` or set AUDIENCE_API_KEY"],
  ])("fails the preview for %s, naming the key, before any resource step", async (_case, index, config, env, provider, message) => {
    const { apiKey } = await world.account("config-check");
    const dir = world.program("config-check", { index });
    await world.requests();
    const preview = await world.run(dir, apiKey, "preview", { config: { baseUrl: `${world.emulator.url}/v1`, ...config }, secrets: { northKey: apiKey }, env });
    expect(preview.ok).toBe(false);
    expect(preview.error).toContain(message);
    expect(failedSteps(preview).map((s) => s.urn.split("::").pop())).toEqual([provider]);
    expect(preview.steps.filter((s) => s.name === "cohort").map((s) => s.phase)).toEqual(["skipped"]);
    expect(writes(await world.requests())).toEqual([]);
  });

  it("updates the provider, replacing nothing, when its apiKey changes", async () => {
    const { id, apiKey } = await world.account("config-rotation");
    const dir = world.program("config-rotation", { index: explicitProvider(`{ apiKey: config.requireSecret("northKey"), baseUrl: config.require("baseUrl") }`) });
    const run = world.runner(dir, apiKey);
    const baseUrl = `${world.emulator.url}/v1`;
    await run("up", { config: { baseUrl }, secrets: { northKey: apiKey } });
    const { api_key: rotated } = (await world.control("POST", `/accounts/${id}/keys`, {})) as { api_key: string };

    await world.requests();
    const preview = await run("preview", { config: { baseUrl }, secrets: { northKey: rotated } });
    expect(preview.steps.filter((s) => s.op !== "same").map((s) => [s.op, s.name, s.keys])).toEqual([["update", "north", ["apiKey"]]]);
    const up = await run("up", { config: { baseUrl }, secrets: { northKey: rotated } });
    expect(up.changes).toEqual({ update: 1, same: 2 });
    expect(writes(await world.requests())).toEqual([]);
    expect(readFileSync(up.statePath, "utf8")).not.toContain(rotated);
  });

  // The Pulumi CLI records `__internal` (its own member) among a provider's inputs, and never gives it to the plugin.
  it("configures an explicit provider the Pulumi CLI recorded, for a refresh and a destroy that run no program", async () => {
    const { apiKey } = await world.account("config-from-cli");
    const dir = world.program("config-from-cli", { index: explicitProvider(`{ apiKey: config.requireSecret("northKey"), baseUrl: config.require("baseUrl") }`) });
    const run = world.runner(dir, apiKey);
    const options = { config: { baseUrl: `${world.emulator.url}/v1` }, secrets: { northKey: apiKey } };
    const up = await run("up", options);
    const exported = JSON.parse((await Snapshot.load(up.statePath, PASSPHRASE)).export({ showSecrets: false })) as { deployment: { resources: { urn: string; inputs?: Record<string, unknown> }[] } };
    const north = exported.deployment.resources.find((r) => r.urn.endsWith("::north"))!;
    north.inputs = { __internal: {}, ...north.inputs };
    await (await Snapshot.parse(JSON.stringify(exported), { path: up.statePath, passphrase: PASSPHRASE })).save();

    const refresh = await run("refresh", options);
    expect(refresh.ok, refresh.error).toBe(true);
    const destroy = await run("destroy", options);
    expect(destroy.ok, destroy.error).toBe(true);
    expect((await world.list<{ name: string }>(apiKey, "cohorts")).map((c) => c.name)).not.toContain("North cohort");
  });
});
