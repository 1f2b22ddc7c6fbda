// Every TypeScript example through the real `pulumi` CLI, installed from `npm pack` as a user installs it, against
// a fresh emulated account: `up`, a no-change preview and refresh, a second `up` that writes nothing, a config
// change shown with its values in `preview --diff` and applied as minimal patches (or deletions), a change made by
// hand found by refresh, and `destroy` leaving nothing in the account. No credential is written in plaintext under
// the backend or PULUMI_HOME.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "pulumi-audience/emulator";
import { emulatorUnderTest, pathOf } from "../engine/emulator-control.ts";
import { filesHolding, pulumiCli, pulumiStack, skipReason, type PulumiStack } from "./cli.ts";

const ROOT = join(import.meta.dirname, "..", "..");

interface Scenario {
  /** Accounts the program names in audience:accounts, besides the default one. */
  accounts?: string[];
  secrets?: Record<string, string>;
  /** A config change, and what it must do: what `preview --diff` shows, members updated per resource, deletions. */
  change: { config: Record<string, string>; diff: RegExp[]; updates?: Record<string, number>; deletes?: string[] };
}

const SCENARIOS: Record<string, Scenario> = {
  "adaptive-discounting": { change: { config: { enabled: "true" }, diff: [/~ preview\s*: true => false/], updates: { "adaptive-discounting": 1 } } },
  "warehouse-delivery": {
    secrets: { warehousePassword: "first-password-6d1f" },
    change: {
      config: { warehouseHost: "warehouse-2.example.com" },
      diff: [/~ host\s*: "warehouse\.example\.com" => "warehouse-2\.example\.com"/, /password\s*: \[secret\]/],
      updates: { warehouse: 1 },
    },
  },
  "location-pipeline": { change: { config: { maxDistanceMeters: "50000" }, diff: [/maxDistance\s*: \d+ => 50000/], updates: { "store-proximity": 1 } } },
  "two-accounts": { accounts: ["north", "south"], change: { config: { "brands[0]": "north" }, diff: [/- pulumi-nodejs:dynamic\/audience:Scope: \(delete\)/], deletes: ["south-leads", "south-leads-csv"] } },
};

const examples = readdirSync(join(ROOT, "examples")).filter((d) => existsSync(join(ROOT, "examples", d, "Pulumi.yaml")));
const cli = pulumiCli();

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(() => emulator?.close());
const control = emulatorUnderTest(() => emulator);
const { takeRequests } = control;

async function createAccount(name: string): Promise<string> {
  return (await control.createAccount({ name, forecasts: true })).api_key;
}

describe.each(examples)(`examples/%s through pulumi${skipReason()}`, { timeout: 300_000 }, (example) => {
  const scenario = SCENARIOS[example];
  it("has a scenario", () => {
    expect(scenario, `add a scenario for examples/${example} to SCENARIOS`).toBeDefined();
  });
  if (!scenario || !cli.dir) return;

  let stack: PulumiStack;
  const keys: string[] = [];
  const live = async () => ((await stack.exported()).deployment.resources ?? []).filter((r) => r.id && pathOf(r.type));

  it("up from empty, then preview and refresh find no change and a second up writes nothing", async () => {
    const apiKey = await createAccount(`pulumi-${example}`);
    keys.push(apiKey);
    stack = await pulumiStack({ program: join(ROOT, "examples", example), env: { AUDIENCE_BASE_URL: `${emulator.url}/v1` } });
    await stack.config({ "audience:apiKey": apiKey }, true);
    const named: Record<string, { apiKey: string; baseUrl: string }> = {};
    for (const name of scenario.accounts ?? []) {
      named[name] = { apiKey: await createAccount(`${example}-${name}`), baseUrl: `${emulator.url}/v1` };
      keys.push(named[name].apiKey);
    }
    if (scenario.accounts) await stack.config({ "audience:accounts": JSON.stringify(named) }, true);
    await stack.config(scenario.secrets ?? {}, true);

    const up = await stack.must(["up", "--yes"]);
    expect(up.output).toMatch(/\+ \d+ created/);
    expect((await live()).length).toBeGreaterThan(1);
    await takeRequests();
    await stack.must(["preview", "--expect-no-changes"]);
    await stack.must(["refresh", "--yes", "--skip-preview", "--expect-no-changes"]);
    const again = await stack.must(["up", "--yes", "--skip-preview", "--expect-no-changes"]);
    expect(again.output).toMatch(/\d+ unchanged/);
    expect((await takeRequests()).filter((r) => r.method !== "GET")).toEqual([]);
  });

  it("a config change shows its values in preview --diff and applies only what changed", async () => {
    const { config, diff, updates = {}, deletes = [] } = scenario.change;
    await stack.config(config);
    const preview = await stack.must(["preview", "--diff"]);
    for (const pattern of diff) expect(preview.output).toMatch(pattern);
    for (const secret of Object.values(scenario.secrets ?? {})) expect(preview.output).not.toContain(secret);
    await takeRequests();
    await stack.must(["up", "--yes", "--skip-preview"]);
    const writes = (await takeRequests()).filter((r) => r.method !== "GET");
    expect(writes.filter((w) => w.method === "POST")).toEqual([]);
    expect(writes.filter((w) => w.method === "PATCH")).toHaveLength(Object.values(updates).reduce((a, b) => a + b, 0));
    expect(writes.filter((w) => w.method === "DELETE")).toHaveLength(deletes.length);
    await stack.must(["preview", "--expect-no-changes"]);
  });

  it("refresh finds a change made by hand, member and value", async () => {
    const scope = (await live()).find((r) => r.type.endsWith(":Scope"))!;
    expect(scope, "every example declares a scope").toBeDefined();
    let patched = 0;
    for (const key of keys) {
      const res = await fetch(`${emulator.url}/v1/${pathOf(scope.type)}/${scope.id}`, {
        method: "PATCH",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/merge-patch+json" },
        body: JSON.stringify({ name: "renamed by hand" }),
      });
      if (res.status === 200) patched++;
    }
    expect(patched).toBe(1);
    const refresh = await stack.pulumi(["refresh", "--preview-only", "--diff", "--expect-no-changes"]);
    expect(refresh.code).not.toBe(0);
    expect(refresh.output).toMatch(/~ name\s*: "[^"]+" => "renamed by hand"/);
    await stack.must(["refresh", "--yes", "--skip-preview"]);
    // Puts back what refresh took in: a change no preview has shown yet.
    await stack.must(["up", "--yes"]);
    await stack.must(["refresh", "--yes", "--skip-preview", "--expect-no-changes"]);
  });

  it("destroy leaves nothing in the account, and no credential was written in plaintext", async () => {
    const before = await live();
    await stack.must(["destroy", "--yes", "--skip-preview"]);
    expect(((await stack.exported()).deployment.resources ?? []).filter((r) => r.custom)).toEqual([]);
    for (const res of before) {
      const statuses = await Promise.all(keys.map(async (k) => (await fetch(`${emulator.url}/v1/${pathOf(res.type)}/${res.id}`, { headers: { authorization: `Bearer ${k}` } })).status));
      expect(statuses.every((s) => s === 404 || s === 410), `${res.urn} still exists: ${statuses}`).toBe(true);
    }
    for (const secret of [...keys, ...Object.values(scenario.secrets ?? {})]) {
      expect(filesHolding(stack.backend, secret)).toEqual([]);
      expect(filesHolding(stack.home, secret)).toEqual([]);
      expect(filesHolding(stack.dir, secret).filter((f) => !f.includes("node_modules"))).toEqual([]);
    }
  });
});
