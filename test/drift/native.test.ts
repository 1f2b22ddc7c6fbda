// `audience drift` over stacks of the native face (`audience:index:*`, as Python, Go, YAML and
// `pulumi-audience/native` programs record them): the state `audience run` keeps (secrets under the passphrase) and
// a plain export of it, read with the installed CLI. Each resource is reached through the provider that manages it
// (an explicit provider's own key and URL, recorded in the state), and drift names what refresh would record.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { audience } from "../cli/helpers.ts";
import { nativePrograms, PASSPHRASE } from "../engine/native-programs.ts";

const world = nativePrograms();
const exports = mkdtempSync(join(tmpdir(), "audience-native-drift-"));
afterAll(() => rmSync(exports, { recursive: true, force: true }));

const SCOPE = (name: string) => `{ name: "${name}", population: { cohortIds: [leads.id] }, payload: { cohortIds: [leads.id] }, preview: true }`;

interface Report {
  accounts: { account: string; baseUrl: string; error?: string; resources: { name: string; type: string; status: string; changes: { path: string; expected: unknown; actual: unknown }[] }[] }[];
}

describe("drift over a native-face stack", { timeout: 300_000 }, () => {
  it("finds what changed by hand in every account, from the state and from its plain export, as refresh does", async () => {
    const { apiKey } = await world.account("native-drift-default");
    const { apiKey: northKey } = await world.account("native-drift-north");
    const baseUrl = `${world.emulator.url}/v1`;
    const dir = world.program("native-drift", {
      index: `import * as pulumi from "@pulumi/pulumi";
import * as audience from "pulumi-audience/native";
const config = new pulumi.Config();
const north = new audience.Provider("north", { apiKey: config.requireSecret("northKey"), baseUrl: config.require("baseUrl") });
const leads = audience.getCohortOutput({ name: "Leads" });
const northLeads = audience.getCohortOutput({ name: "Leads" }, { provider: north });
export const home = new audience.Scope("home", ${SCOPE("Home")}).id;
export const kept = new audience.Scope("kept", ${SCOPE("Kept")}).id;
export const away = new audience.Scope("away", ${SCOPE("Away").replaceAll("leads.id", "northLeads.id")}, { provider: north }).id;
`,
    });
    const extra = { config: { baseUrl }, secrets: { northKey } };
    const run = world.runner(dir, apiKey);
    const up = await run("up", extra);
    const rename = (key: string, id: unknown, name: string) =>
      fetch(`${baseUrl}/scopes/${String(id)}`, { method: "PATCH", headers: { authorization: `Bearer ${key}`, "content-type": "application/merge-patch+json" }, body: JSON.stringify({ name }) });
    expect((await rename(apiKey, up.outputs["home"], "Home by hand")).status).toBe(200);
    expect((await rename(northKey, up.outputs["away"], "Away by hand")).status).toBe(200);

    // The north key is in no environment and no --accounts: only the state's explicit provider holds it.
    const env = { AUDIENCE_API_KEY: apiKey, AUDIENCE_BASE_URL: baseUrl, PULUMI_CONFIG_PASSPHRASE: PASSPHRASE };
    const plain = join(exports, "plain.json");
    const exported = await audience(["stack", "export", "--cwd", dir, "--state-dir", join(dir, "state"), "--show-secrets", "--file", plain], { env });
    expect(exported.stderr).toBe("");
    const { PULUMI_CONFIG_PASSPHRASE: _passphrase, ...withoutPassphrase } = env;

    const reported: Record<string, string[]>[] = [];
    for (const [state, environment] of [[up.statePath, env], [plain, withoutPassphrase]] as const) {
      const drift = await audience(["drift", "--json", state], { env: environment });
      expect(drift.stderr).toBe("");
      expect(drift.code).toBe(2);
      const report = JSON.parse(drift.stdout) as Report;
      expect(report.accounts.map((a) => a.error)).toEqual([undefined, undefined]);
      // The explicit provider's account is named as the provider, not as the stack's default account.
      expect(report.accounts.map((a) => a.account).sort()).toEqual(["default", "provider north"]);
      const managed = report.accounts.flatMap((a) => a.resources.filter((r) => r.status !== "unmanaged").map((r) => [a.baseUrl, r.type, r.name, r.status, r.changes]));
      expect(managed.sort()).toEqual([
        [baseUrl, "Scope", "away", "drifted", [{ path: "name", expected: "Away", actual: "Away by hand" }]],
        [baseUrl, "Scope", "home", "drifted", [{ path: "name", expected: "Home", actual: "Home by hand" }]],
        [baseUrl, "Scope", "kept", "in_sync", []],
      ]);
      const changed = Object.fromEntries(report.accounts.flatMap((a) => a.resources.filter((r) => r.changes.length > 0).map((r) => [r.name, r.changes.map((c) => c.path.split(/[.[]/)[0]!).sort()])));
      reported.push(changed);
      expect(drift.stdout).not.toContain(northKey);
    }

    // Refresh (after drift: it records what it finds) changes the same members of the same resources.
    const refresh = await run("refresh", extra);
    const refreshed = Object.fromEntries(refresh.steps.filter((s) => s.phase === "done" && s.keys.length > 0).map((s) => [s.name, [...s.keys].sort()]));
    expect(refreshed).toEqual({ home: ["name"], away: ["name"] });
    expect(reported).toEqual([refreshed, refreshed]);
  });
});
