// `audience drift` over what `pulumi stack export` writes (secrets encrypted with the stack's passphrase), after
// changes made by hand, reports the same resources, members and values as `pulumi refresh --preview-only --diff`
// shows for the same stack: the dynamic face, through the real `pulumi` CLI (one group of the chaos program).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "pulumi-audience/emulator";
import { audience } from "../cli/helpers.ts";
import { chaosStack } from "./chaos-stacks.ts";
import { pulumiCli, skipReason } from "./cli.ts";

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator({ builds: { default: "immediate" }, world: { size: 2000 } });
});
afterAll(() => emulator?.close());

interface Report {
  accounts: { error?: string; resources: { name: string; status: string; changes: { path: string; expected: unknown; actual: unknown }[] }[] }[];
}

/**
 * What `pulumi refresh --preview-only --diff` shows per resource for the members the program declares (`declared`,
 * by resource name: refresh also shows what the service keeps for itself, such as timestamps and counts):
 * `name: member old => new`, and deletions.
 */
function refreshChanges(output: string, declared: Record<string, string[]>): string[] {
  const found: string[] = [];
  let resource = "";
  for (const line of output.split("\n")) {
    const urn = /\[urn=urn:pulumi:[^\]]*::([^:\]]+)\]/.exec(line);
    if (urn) resource = urn[1]!;
    const change = /^\s+~ (\w+)\s*: (.+?) => (.+)$/.exec(line);
    if (change && resource && declared[resource]?.includes(change[1]!)) found.push(`${resource}: ${change[1]} ${change[2]} => ${change[3]}`);
    const deleted = /^\s+- pulumi-nodejs:dynamic\/audience:\w+: \(delete\)/.test(line);
    if (deleted) found.push("deleted:");
    if (found.at(-1) === "deleted:" && urn) found[found.length - 1] = `${resource}: missing`;
  }
  return found.sort();
}

describe(`drift over a pulumi stack export${skipReason()}`, { timeout: 600_000 }, () => {
  it.skipIf(!pulumiCli().dir)("reports the members and values that refresh --preview-only shows, for changes made by hand", async () => {
    const apiKey = emulator.apiKey;
    const stack = await chaosStack(emulator, { apiKey, groups: 1, password: "drift-warehouse-password" });
    await stack.must(["up", "--yes", "--skip-preview"]);
    const resources = (await stack.exported()).deployment.resources ?? [];
    const ids = Object.fromEntries(resources.map((r) => [r.urn.split("::").pop()!, r.id]));
    const declared = Object.fromEntries(resources.map((r) => [r.urn.split("::").pop()!, Object.keys(r.inputs ?? {})]));
    const hand = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${emulator.url}/v1${path}`, {
        method, headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { "content-type": "application/merge-patch+json" }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      expect(response.status, await response.clone().text()).toBeLessThan(300);
    };
    await hand("PATCH", `/scopes/${ids["scope-0-1"]}`, { name: "Renamed by hand" });
    await hand("PATCH", `/cohorts/${ids["cohort-0-3"]}`, { min_count: 42 });
    await hand("PATCH", `/outcomes/${ids["outcome-0-2"]}`, { name: "Outcome by hand" });
    await hand("DELETE", `/webhook_endpoints/${ids["hook-0-1"]}`);

    const exported = join(stack.dir, "dev-export.json");
    writeFileSync(exported, (await stack.must(["stack", "export"])).stdout);
    const drift = await audience(["drift", "--json", exported], {
      cwd: stack.dir,
      env: { PULUMI_CONFIG_PASSPHRASE: "pulumi passphrase", AUDIENCE_API_KEY: apiKey, AUDIENCE_BASE_URL: `${emulator.url}/v1` },
    });
    expect(drift.code, drift.stderr).toBe(2);
    const report = JSON.parse(drift.stdout) as Report;
    expect(report.accounts.map((a) => a.error)).toEqual([undefined]);
    const reported = report.accounts.flatMap((a) => a.resources.flatMap((r) => {
      if (r.status === "missing") return [`${r.name}: missing`];
      return r.changes.map((c) => `${r.name}: ${c.path} ${JSON.stringify(c.expected)} => ${JSON.stringify(c.actual)}`);
    })).sort();

    const refresh = await stack.pulumi(["refresh", "--preview-only", "--diff"]);
    expect(refresh.code, refresh.output).toBe(0);
    const shown = refreshChanges(refresh.output, declared);
    console.info(`drift: ${reported.join("; ")}\nrefresh: ${shown.join("; ")}`);
    expect(reported).toEqual([
      'cohort-0-3: minCount 4 => 42',
      'hook-0-1: missing',
      'outcome-0-2: name "Chaos outcome 0.2" => "Outcome by hand"',
      'scope-0-1: name "Chaos scope 0.1" => "Renamed by hand"',
    ]);
    expect(shown).toEqual(reported);
  });
});
