// Every program in examples/ runs unmodified through the local engine against a fresh emulated account:
// up from empty, a second up that only reads, a config change applied as minimal patches (or deletions),
// drift found by refresh, and destroy leaving the account empty. test/pulumi/examples.test.ts runs them through the
// real Pulumi CLI.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "pulumi-audience/emulator";
import type { Operation, RunResult } from "../../provider/engine/index.ts";
import { runProgram } from "../../provider/cli/program.ts";
import { emulatorUnderTest, pathOf } from "./emulator-control.ts";
import { programDir } from "./installed.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const PASSPHRASE = "examples passphrase";

interface Scenario {
  /** Accounts the program names in audience:accounts, besides the default one. */
  accounts?: string[];
  secrets?: Record<string, string>;
  /** A config change and what it must do: property keys updated per resource name, resource names deleted. */
  change: { config: Record<string, string>; updates?: Record<string, string[]>; deletes?: string[] };
}

const SCENARIOS: Record<string, Scenario> = {
  "adaptive-discounting": { change: { config: { enabled: "true" }, updates: { "adaptive-discounting": ["preview"] } } },
  "warehouse-delivery": {
    secrets: { warehousePassword: "first-password" },
    change: { config: { warehouseHost: "warehouse-2.example.com" }, updates: { warehouse: ["options.host"] } },
  },
  "location-pipeline": {
    change: { config: { maxDistanceMeters: "50000" }, updates: { "store-proximity": ["payload.location.maxDistance"] } },
  },
  "two-accounts": { accounts: ["north", "south"], change: { config: { brands: '["north"]' }, deletes: ["south-leads", "south-leads-csv"] } },
};

const examples = readdirSync(join(ROOT, "examples")).filter((d) => existsSync(join(ROOT, "examples", d, "Pulumi.yaml")));

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(() => emulator.close());

interface Account {
  apiKey: string;
  env: Record<string, string>;
  secrets: Record<string, string>;
}

const { createAccount, takeRequests: requests } = emulatorUnderTest(() => emulator);

async function freshAccounts(scenario: Scenario): Promise<Account> {
  // forecasts: true seeds the "Forecasted spend" forecast adaptive-discounting looks up
  const create = async (name: string) => (await createAccount({ name, forecasts: true })).api_key;
  const apiKey = await create(`examples-${Date.now()}`);
  const named: Record<string, { apiKey: string; baseUrl: string }> = {};
  for (const name of scenario.accounts ?? []) named[name] = { apiKey: await create(name), baseUrl: `${emulator.url}/v1` };
  const secrets = { ...scenario.secrets, ...(scenario.accounts ? { "audience:accounts": JSON.stringify(named) } : {}) };
  return { apiKey, env: { AUDIENCE_BASE_URL: `${emulator.url}/v1`, AUDIENCE_API_KEY: apiKey }, secrets };
}

describe.each(examples)("examples/%s through the local engine", { timeout: 180_000 }, (example) => {
  const scenario = SCENARIOS[example];
  const stateDir = mkdtempSync(join(tmpdir(), `example-${example}-`));
  afterAll(() => rmSync(stateDir, { recursive: true, force: true }));
  let account: Account;
  const run = async (operation: Operation, config: Record<string, string> = {}): Promise<RunResult> =>
    runProgram({ cwd: await programDir(join(ROOT, "examples", example)), operation, passphrase: PASSPHRASE, stateDir, env: account.env, config, secrets: account.secrets });
  const resources = () => (JSON.parse(readFileSync(join(stateDir, "dev.json"), "utf8")) as { deployment: { resources: { type: string; id?: string; urn: string }[] } }).deployment.resources;
  const live = () => resources().filter((r) => r.id && pathOf(r.type));

  it("has a scenario", () => {
    expect(scenario, `add a scenario for examples/${example} to SCENARIOS`).toBeDefined();
  });
  if (!scenario) return;

  it("up from empty creates every resource, then a second up only reads", async () => {
    account = await freshAccounts(scenario);
    const first = await run("up");
    expect(first.ok, first.error).toBe(true);
    expect(first.changes.create).toBeGreaterThan(1);
    expect(first.changes.update ?? 0).toBe(0);
    // Stack outputs read answered members the program never gave (`status`, `outputUrl`): built on first read.
    expect(Object.keys(first.outputs).length).toBeGreaterThan(0);
    expect(Object.entries(first.outputs).filter(([, v]) => v === undefined || v === null || (typeof v === "object" && Object.values(v).includes(undefined)))).toEqual([]);
    await requests();
    const second = await run("up");
    expect(second.ok, second.error).toBe(true);
    expect(Object.keys(second.changes)).toEqual(["same"]);
    const writes = (await requests()).filter((r) => r.method !== "GET");
    expect(writes).toEqual([]);
  });

  it("a config change applies only what changed", async () => {
    const { config, updates = {}, deletes = [] } = scenario.change;
    const r = await run("up", config);
    expect(r.ok, r.error).toBe(true);
    const done = r.steps.filter((s) => s.phase === "done");
    expect(Object.fromEntries(done.filter((s) => s.op === "update").map((s) => [s.name, s.keys]))).toEqual(updates);
    expect(done.filter((s) => s.op === "delete").map((s) => s.name).sort()).toEqual([...deletes].sort());
    expect(done.filter((s) => s.op === "replace" || s.op === "create")).toEqual([]);
    const writes = (await requests()).filter((x) => x.method !== "GET");
    expect(writes.filter((x) => x.method === "PATCH")).toHaveLength(Object.keys(updates).length);
    expect(writes.filter((x) => x.method === "POST")).toEqual([]);
  });

  it("refresh reports a change made outside the program", async () => {
    const scope = live().find((r) => r.type.endsWith(":Scope"))!;
    expect(scope, "every example declares a scope").toBeDefined();
    const key = scope.urn.includes("::north-") || scope.urn.includes("::south-") ? JSON.parse(account.secrets["audience:accounts"] ?? "{}")[scope.urn.split("::").pop()!.split("-")[0]!].apiKey : account.apiKey;
    const patched = await fetch(`${emulator.url}/v1/${pathOf(scope.type)}/${scope.id}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/merge-patch+json" },
      body: JSON.stringify({ name: "renamed by hand" }),
    });
    expect(patched.status).toBe(200);
    const r = await run("refresh", scenario.change.config);
    expect(r.ok, r.error).toBe(true);
    const drift = r.steps.filter((s) => s.op === "drift");
    expect(drift.map((s) => s.urn)).toEqual([scope.urn]);
    expect(drift[0]?.keys).toContain("name");
  });

  it("destroy removes everything from the account", async () => {
    const before = live();
    const r = await run("destroy", scenario.change.config);
    expect(r.ok, r.error).toBe(true);
    expect(resources()).toEqual([]);
    const keys = [account.apiKey, ...Object.values(JSON.parse(account.secrets["audience:accounts"] ?? "{}") as Record<string, { apiKey: string }>).map((a) => a.apiKey)];
    // Uploads included: their id is the subpath, so this GET is the file's download.
    for (const res of before) {
      const statuses = await Promise.all(keys.map(async (k) => (await fetch(`${emulator.url}/v1/${pathOf(res.type)}/${res.id}`, { headers: { authorization: `Bearer ${k}` } })).status));
      expect(statuses.every((s) => s === 404 || s === 410), `${res.urn} still exists: ${statuses}`).toBe(true);
    }
  });
});
