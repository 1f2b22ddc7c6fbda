// Native mode through the local engine: programs importing `pulumi-audience/native` run against the emulator with
// the `audience` plugin hosted by the engine (default provider from stack config, explicit providers, lookups as
// functions, the `import` option), and a stack made in dynamic mode moves to native mode without replacing anything.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Snapshot } from "../../provider/engine/snapshot.ts";
import { DEFAULT_PROVIDER, nativePrograms, PASSPHRASE, stepsOf, writes } from "./native-programs.ts";

const world = nativePrograms();
const { program, requests, list } = world;
const freshAccount = async (name: string) => (await world.account(name)).apiKey;
const runner = (dir: string, apiKey: string) => world.runner(dir, apiKey);

/** A scope made directly in the service (as the program declares it, but for its name); its id. */
async function existingScope(apiKey: string, name: string): Promise<string> {
  const leads = (await list<{ id: string; name: string }>(apiKey, "cohorts")).find((c) => c.name === "Leads")!.id;
  const created = await fetch(`${world.emulator.url}/v1/scopes`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ name, population: { cohort_ids: [leads] }, payload: { cohort_ids: [leads] }, preview: true }),
  });
  expect(created.status).toBe(201);
  return ((await created.json()) as { id: string }).id;
}

describe("an example in native mode through the local engine", { timeout: 240_000 }, () => {
  it("goes up, stays put on a second up, updates, refreshes clean and is destroyed", async () => {
    const apiKey = await freshAccount("native-example");
    const run = runner(program("adaptive-discounting", { example: "adaptive-discounting" }), apiKey);

    const up = await run("up");
    expect(stepsOf(up, "create").sort()).toEqual(["adaptive-discounting", "adaptive-discounting-csv", "adaptive-discounting-dev"]);
    const resources = readFileSync(up.statePath, "utf8");
    expect(resources).toContain("audience:index:Scope");
    expect(resources).toContain(`pulumi:providers:audience::${DEFAULT_PROVIDER}`);
    expect(resources).not.toContain("pulumi-nodejs");
    expect(up.outputs["csvUrl"]).toMatch(/^http/);
    await requests();

    const again = await run("up");
    expect(again.changes).not.toHaveProperty("create");
    expect(again.changes).not.toHaveProperty("update");
    expect(writes(await requests())).toEqual([]);

    const update = await run("up", { config: { enabled: "true" } });
    const scopeUpdate = update.steps.find((s) => s.phase === "done" && s.op === "update");
    expect(scopeUpdate?.keys).toEqual(["preview"]);
    expect(writes(await requests())).toEqual(expect.arrayContaining([expect.stringMatching(/^PATCH \/scopes\//)]));

    const refresh = await run("refresh", { config: { enabled: "true" } });
    expect(refresh.changes).not.toHaveProperty("drift");
    expect(refresh.changes).not.toHaveProperty("gone");

    await run("destroy", { config: { enabled: "true" } });
    expect(await list(apiKey, "scopes")).toEqual([]);
    expect(await list(apiKey, "targets")).toEqual([]);
  });
});

const SCOPE_ARGS = `{ name: "North pipeline", population: { cohortIds: [leads.id] }, payload: { cohortIds: [leads.id] }, preview: true }`;

describe("explicit providers and import through the local engine", { timeout: 240_000 }, () => {
  it("manages a resource in a second account through an explicit provider", async () => {
    const apiKey = await freshAccount("native-default");
    const northKey = await freshAccount("native-north");
    const run = runner(program("second-account", {
      index: `import * as pulumi from "@pulumi/pulumi";
import * as audience from "pulumi-audience/native";
const config = new pulumi.Config();
const north = new audience.Provider("north", { apiKey: config.requireSecret("northKey"), baseUrl: config.require("baseUrl") });
const leads = audience.getCohortOutput({ name: "Leads" }, { provider: north });
const scope = new audience.Scope("north-scope", ${SCOPE_ARGS}, { provider: north });
export const scopeId = scope.id;
`,
    }), apiKey);
    const extra = { config: { baseUrl: `${world.emulator.url}/v1` }, secrets: { northKey } };
    const up = await run("up", extra);
    const northScopes = await list<{ id: string; name: string }>(northKey, "scopes");
    expect(northScopes.map((s) => s.id)).toEqual([up.outputs["scopeId"]]);
    expect(await list(apiKey, "scopes")).toEqual([]);
    const state = readFileSync(up.statePath, "utf8");
    expect(state).toContain("pulumi:providers:audience::north");
    expect(state).not.toContain(northKey);

    await requests();
    await run("up", extra);
    expect(writes(await requests())).toEqual([]);
    await run("destroy", extra);
    expect(await list(northKey, "scopes")).toEqual([]);
  });

  it("imports an existing resource by id, recording what a create would, then leaves it alone", async () => {
    const apiKey = await freshAccount("native-import");
    const existing = await existingScope(apiKey, "North pipeline");
    const source = (options: string) => `import * as audience from "pulumi-audience/native";
const leads = audience.getCohortOutput({ name: "Leads" });
const scope = new audience.Scope("imported", ${SCOPE_ARGS}${options});
export const scopeId = scope.id;
`;
    const dir = program("import", { index: source(`, { import: "${existing}" }`) });
    const run = runner(dir, apiKey);
    await requests();
    const up = await run("up");
    expect(stepsOf(up, "adopt")).toEqual(["imported"]);
    expect(up.outputs["scopeId"]).toBe(existing);
    expect(writes(await requests())).toEqual([]);

    // What a create records for the same program, in a second stack of another account.
    const otherKey = await freshAccount("native-import-create");
    const createdUp = await runner(program("create", { index: source("") }), otherKey)("up");
    const recorded = (path: string) => {
      const state = JSON.parse(readFileSync(path, "utf8")) as { deployment: { resources: { type: string; inputs: Record<string, unknown> }[] } };
      const scope = state.deployment.resources.find((r) => r.type === "audience:index:Scope")!;
      const { population: _p, payload: _l, ...rest } = scope.inputs;
      return rest;
    };
    expect(recorded(up.statePath)).toEqual(recorded(createdUp.statePath));

    // With the import option gone, the resource stays as it is.
    writeFileSync(join(dir, "index.ts"), source(""));
    await requests();
    const after = await run("up");
    expect(after.changes).not.toHaveProperty("create");
    expect(after.changes).not.toHaveProperty("update");
    expect(writes(await requests())).toEqual([]);
  });

  it("refuses an import whose inputs differ from the existing resource, naming the members", async () => {
    const apiKey = await freshAccount("native-import-differs");
    const existing = await existingScope(apiKey, "Another name");
    const dir = program("import-differs", {
      index: `import * as audience from "pulumi-audience/native";
const leads = audience.getCohortOutput({ name: "Leads" });
new audience.Scope("imported", ${SCOPE_ARGS}, { import: "${existing}" });
`,
    });
    const result = await world.run(dir, apiKey, "up");
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/differ from resource .* at name \(declared "North pipeline", found "Another name"\): make them match/);
  });

  it("names both values of each differing member of an import, a credential masked", async () => {
    const apiKey = await freshAccount("native-import-connection");
    const made = await fetch(`${world.emulator.url}/v1/connections`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Warehouse", options: { type: "postgres", host: "db1.example.com", port: 5432, database: "d", schema: "s", user: "u", password: "found-password-7a1" } }),
    });
    expect(made.status).toBe(201);
    const existing = ((await made.json()) as { id: string }).id;
    const dir = program("import-connection", {
      index: `import * as audience from "pulumi-audience/native";
new audience.Connection("warehouse", {
  name: "Warehouse",
  options: { type: "postgres", host: "db2.example.com", port: 5432, database: "d", schema: "s", user: "u", password: "declared-password-3f9" },
}, { import: "${existing}" });
`,
    });
    const result = await world.run(dir, apiKey, "up");
    expect(result.ok).toBe(false);
    expect(result.error).toContain('options.host (declared "db2.example.com", found "db1.example.com")');
    expect(result.error).not.toMatch(/declared-password|found-password/);
  });
});

describe("a stack made in dynamic mode, moved to native mode", { timeout: 240_000 }, () => {
  it("keeps every resource: no replace, no write", async () => {
    const apiKey = await freshAccount("native-migration");
    const dir = program("migration", { example: "adaptive-discounting" });
    const index = join(dir, "index.ts");
    const native = readFileSync(index, "utf8");
    writeFileSync(index, native.replace('from "pulumi-audience/native"', 'from "pulumi-audience"'));
    const run = runner(dir, apiKey);
    const dynamic = await run("up");
    expect(readFileSync(dynamic.statePath, "utf8")).toContain("pulumi-nodejs:dynamic/audience:Scope");

    writeFileSync(index, native);
    await requests();
    const moved = await run("up");
    expect(moved.changes).not.toHaveProperty("replace");
    expect(moved.changes).not.toHaveProperty("create");
    expect(moved.changes).not.toHaveProperty("delete");
    expect(writes(await requests())).toEqual([]);
    const state = readFileSync(moved.statePath, "utf8");
    expect(state).toContain("audience:index:Scope");
    expect(state).not.toContain("pulumi-nodejs:dynamic/audience:Scope");

    await requests();
    await run("up");
    expect(writes(await requests())).toEqual([]);
  });
});

describe("a native stack recorded before the schema named operators $gte", { timeout: 240_000 }, () => {
  it("refreshes to nothing: its outputs keep the _gte the state holds, and an up writes nothing", async () => {
    const apiKey = await freshAccount("native-operator-names");
    const run = runner(program("operator-names", { index: `import * as audience from "pulumi-audience/native";
new audience.Cohort("spenders", { name: "Spenders", streamName: "transactions", streamConditions: [{ property: "amount", _gte: 100 }, { property: "datetime", _on_or_after: "2024-01-01" }] });
` }), apiKey);
    const up = await run("up");
    type Saved = { deployment: { resources: { urn: string; outputs?: Record<string, unknown> }[] } };
    // Edited as a user is told to: exported, changed and imported (a state file edited in place is refused).
    const saved = JSON.parse((await Snapshot.load(up.statePath, PASSPHRASE)).export({ showSecrets: false })) as Saved;
    const cohort = () => saved.deployment.resources.find((r) => r.urn.endsWith("::spenders"))!;
    expect(cohort().outputs!.streamConditions).toEqual([{ property: "amount", $gte: 100 }, { property: "datetime", $onOrAfter: "2024-01-01" }]);
    // The outputs as the plugin recorded them before: in the program's names.
    const legacy = [{ property: "amount", _gte: 100 }, { property: "datetime", _on_or_after: "2024-01-01" }];
    cohort().outputs!.streamConditions = legacy;
    await (await Snapshot.parse(JSON.stringify(saved), { path: up.statePath, passphrase: PASSPHRASE })).save();
    const before = cohort().outputs;
    await requests();

    const refresh = await run("refresh");
    expect(Object.keys(refresh.changes)).toEqual(["same"]);
    const after = (JSON.parse(readFileSync(refresh.statePath, "utf8")) as Saved).deployment.resources.find((r) => r.urn.endsWith("::spenders"))!;
    expect(after.outputs).toEqual(before);

    const again = await run("up");
    expect(Object.keys(again.changes)).toEqual(["same"]);
    expect(writes(await requests())).toEqual([]);
  });
});
