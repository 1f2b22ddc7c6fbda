// Native mode through the local engine: programs importing `pulumi-audience/native` run against the emulator with
// the `audience` plugin hosted by the engine (default provider from stack config, explicit providers, lookups as
// functions, the `import` option), and a stack made in dynamic mode moves to native mode without replacing anything.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "pulumi-audience/emulator";
import { runProgram, type Operation, type RunResult } from "../../provider/engine/index.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const PASSPHRASE = "native passphrase";
// Inside the repository, so the programs resolve `pulumi-audience` to its sources (ignored by git).
const WORK = join(ROOT, ".audience", "native-tests");

let emulator: RunningEmulator;
const made: string[] = [];

beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
  mkdirSync(WORK, { recursive: true });
});

afterAll(async () => {
  await emulator?.close();
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

async function freshAccount(name: string): Promise<string> {
  const res = await fetch(`${emulator.url}/_emulator/accounts`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name, forecasts: true }) });
  expect(res.status).toBe(201);
  return ((await res.json()) as { api_key: string }).api_key;
}

/** The emulator's request log since the last call, then cleared. */
async function requests(): Promise<{ method: string; path: string }[]> {
  const list = (await (await fetch(`${emulator.url}/_emulator/requests`)).json()) as { method: string; path: string }[];
  await fetch(`${emulator.url}/_emulator/requests`, { method: "DELETE" });
  return list;
}

const writes = (list: { method: string; path: string }[]) => list.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);

async function list<T>(apiKey: string, path: string): Promise<T[]> {
  const res = await fetch(`${emulator.url}/v1/${path}`, { headers: { authorization: `Bearer ${apiKey}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as T[];
}

/** A scope made directly in the service (as the program declares it, but for its name); its id. */
async function existingScope(apiKey: string, name: string): Promise<string> {
  const leads = (await list<{ id: string; name: string }>(apiKey, "cohorts")).find((c) => c.name === "Leads")!.id;
  const created = await fetch(`${emulator.url}/v1/scopes`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ name, population: { cohort_ids: [leads] }, payload: { cohort_ids: [leads] }, preview: true }),
  });
  expect(created.status).toBe(201);
  return ((await created.json()) as { id: string }).id;
}

/** A program folder: an example copied with its import switched to native mode, or a program's text. */
function program(name: string, source: { example: string } | { index: string }): string {
  const dir = mkdtempSync(join(WORK, `${name}-`));
  made.push(dir);
  if ("example" in source) {
    cpSync(join(ROOT, "examples", source.example), dir, { recursive: true });
    const index = join(dir, "index.ts");
    writeFileSync(index, readFileSync(index, "utf8").replace(/from "pulumi-audience"/, 'from "pulumi-audience/native"'));
  } else {
    writeFileSync(join(dir, "Pulumi.yaml"), `name: ${name}\nruntime:\n  name: nodejs\n  options:\n    typescript: false\n    nodeargs: --conditions=source\nmain: index.ts\n`);
    writeFileSync(join(dir, "index.ts"), source.index);
  }
  return dir;
}

function runner(dir: string, apiKey: string) {
  const env = { AUDIENCE_BASE_URL: `${emulator.url}/v1`, AUDIENCE_API_KEY: apiKey };
  return async (operation: Operation, extra: { config?: Record<string, string>; secrets?: Record<string, string> } = {}): Promise<RunResult> => {
    const result = await runProgram({ cwd: dir, operation, passphrase: PASSPHRASE, stateDir: join(dir, "state"), env, ...extra });
    if (!result.ok) throw new Error(`${operation} failed: ${result.error}\n${result.diagnostics.map((d) => d.message).join("\n")}`);
    return result;
  };
}

const stepsOf = (result: RunResult, op: string) => result.steps.filter((s) => s.phase === "done" && s.op === op).map((s) => s.urn.split("::").pop());

describe("an example in native mode through the local engine", { timeout: 240_000 }, () => {
  it("goes up, stays put on a second up, updates, refreshes clean and is destroyed", async () => {
    const apiKey = await freshAccount("native-example");
    const run = runner(program("adaptive-discounting", { example: "adaptive-discounting" }), apiKey);

    const up = await run("up");
    expect(stepsOf(up, "create").sort()).toEqual(["adaptive-discounting", "adaptive-discounting-csv", "adaptive-discounting-dev"]);
    const resources = readFileSync(up.statePath, "utf8");
    expect(resources).toContain("audience:index:Scope");
    expect(resources).toContain("pulumi:providers:audience::default");
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
    const extra = { config: { baseUrl: `${emulator.url}/v1` }, secrets: { northKey } };
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
    const result = await runProgram({ cwd: dir, operation: "up", passphrase: PASSPHRASE, stateDir: join(dir, "state"), env: { AUDIENCE_BASE_URL: `${emulator.url}/v1`, AUDIENCE_API_KEY: apiKey } });
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/differ from resource .* at name/);
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
