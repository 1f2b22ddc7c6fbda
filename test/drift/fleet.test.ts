// `audience drift` over a fleet on the emulator: a stack of the local engine (two accounts, config in
// Pulumi.dev.yaml with secure values) and a `pulumi stack export` (two more accounts, keys from --accounts
// `apiKeyEnv`), after changes by hand of every kind.
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { PassphraseCrypter } from "../../provider/engine/secrets.ts";
import { runProgram } from "../../provider/cli/program.ts";
import type { Report, ResourceReport } from "../../provider/cli/drift/report.ts";
import { audience, exportStack, REPO_ROOT, startFleet, type Fleet } from "./fleet.ts";

const PASSPHRASE = "drift passphrase";
const WAREHOUSE_PASSWORD = "hunter2-warehouse";
const SOUTH_PASSWORD = "hunter2-south";

let fleet: Fleet;
let program: string;
let engineState: string;
let exported: string;
let sealed: string;
let accountsFile: string;
let env: NodeJS.ProcessEnv;
const ids: Record<string, string> = {};

beforeAll(async () => {
  fleet = await startFleet();
  const { parent, north, south } = fleet;
  const post = async (account: typeof parent, path: string, body: unknown) => ((await fleet.api(account, "POST", path, body)) as { id: string }).id;
  ids.shared = await post(parent, "/cohorts", { name: "Shared" }); // made by hand, read by the program through a lookup

  // The engine's own stack: accounts, key and password in Pulumi.dev.yaml, secure.
  program = await mkdtemp(join(REPO_ROOT, "test/drift/.stack-"));
  await cp(join(REPO_ROOT, "test/drift/fixtures/fleet"), program, { recursive: true });
  const crypter = await PassphraseCrypter.open(PASSPHRASE);
  const secure = (text: string) => ({ secure: crypter.encrypt(text) });
  await writeFile(join(program, "Pulumi.dev.yaml"), stringify({
    encryptionsalt: crypter.saltState,
    config: {
      "audience:baseUrl": fleet.url,
      "audience:apiKey": secure(parent.apiKey),
      "audience:accounts": secure(JSON.stringify({ north: { apiKey: north.apiKey, baseUrl: fleet.url } })),
      "fleet:warehousePassword": secure(WAREHOUSE_PASSWORD),
    },
  }));
  const up = await runProgram({ cwd: program, operation: "up", passphrase: PASSPHRASE, env: { AUDIENCE_API_KEY: "", AUDIENCE_BASE_URL: "" } });
  expect(up.ok, up.error).toBe(true);
  engineState = join(program, ".audience/state/dev.json");
  const state = JSON.parse(await readFile(engineState, "utf8")) as { deployment: { resources: { urn: string; id?: string }[] } };
  for (const r of state.deployment.resources) if (r.id) ids[r.urn.slice(r.urn.lastIndexOf("::") + 2)] = r.id;

  // A `pulumi stack export --show-secrets` of another stack over the default account and south; and one whose
  // secrets were encrypted by a provider this machine cannot open.
  const warehouse = (name: string, password: string) => ({ name, options: { type: "postgres", host: "db", port: 5432, database: "d", schema: "s", user: "u", password } });
  const shown = await exportStack(fleet.settings, "exported", [
    { name: "exported", collection: "cohorts", props: { name: "Exported" } },
    { name: "south-cohort", collection: "cohorts", props: { account: "south", name: "South" } },
    { name: "south-warehouse", collection: "connections", props: { account: "south", ...warehouse("South warehouse", SOUTH_PASSWORD) } },
    { name: "stale-cohort", collection: "cohorts", props: { account: "stale", name: "Stale" } },
  ], "shown");
  Object.assign(ids, shown.ids);
  const hidden = await exportStack(fleet.settings, "sealed", [
    { name: "sealed-warehouse", collection: "connections", props: { account: "south", ...warehouse("Sealed warehouse", SOUTH_PASSWORD) } },
  ], "sealed");
  Object.assign(ids, hidden.ids);
  const dir = await mkdtemp(join(program, "exports-"));
  exported = join(dir, "exported.json");
  await writeFile(exported, JSON.stringify(shown.document));
  sealed = join(program, "sealed.json");
  await writeFile(sealed, JSON.stringify(hidden.document));
  // Names are edited in the console on purpose, except the one cohort whose name a report depends on.
  await writeFile(join(dir, ".audience-drift-ignore"), "# accepted by hand\nCohort:*:name\n!Cohort:renamed:name\nCohort:Sandbox*\n");
  accountsFile = join(dir, "accounts.json");
  await writeFile(accountsFile, JSON.stringify({ south: { baseUrl: fleet.url, apiKeyEnv: "SOUTH_KEY" }, stale: { baseUrl: fleet.url, apiKeyEnv: "STALE_KEY" } }));
  env = { PULUMI_CONFIG_PASSPHRASE: PASSPHRASE, AUDIENCE_API_KEY: parent.apiKey, AUDIENCE_BASE_URL: fleet.url, SOUTH_KEY: south.apiKey, STALE_KEY: fleet.stale.apiKey, NO_COLOR: "" };

  // By hand: plain, nested and array members, a deletion, an archive, a failed build, resources nobody manages.
  await fleet.api(parent, "PATCH", `/cohorts/${ids.renamed}`, { name: "Renamed by hand", min_count: 3 });
  await fleet.api(parent, "PATCH", `/cohorts/${ids.tolerant}`, { min_count: 5 });
  await fleet.api(parent, "PATCH", `/scopes/${ids.pipeline}`, { population: { cohort_ids: [ids.kept, ids.shared] } });
  await fleet.api(parent, "PATCH", `/connections/${ids.warehouse}`, { options: { host: "db2" } });
  await fleet.api(parent, "DELETE", `/cohorts/${ids.doomed}`);
  // Changed, then archived: both are reported, as refresh records both.
  await fleet.api(parent, "PATCH", `/cohorts/${ids.shelved}`, { min_count: 9 });
  await fleet.api(parent, "POST", `/cohorts/${ids.shelved}/archive`, {});
  await fleet.api(parent, "PATCH", `/cohorts/${ids.exported}`, { name: "Exported, renamed in the console" });
  ids.handmade = await post(parent, "/cohorts", { name: "Handmade" });
  ids.sandbox = await post(parent, "/cohorts", { name: "Sandbox scratch" });
  await fleet.api(north, "PATCH", `/cohorts/${ids["north-cohort"]}`, { name: "North, renamed" });
  ids.northHandmade = await post(north, "/cohorts", { name: "North handmade" });
  await fleet.api(south, "PATCH", `/connections/${ids["south-warehouse"]}`, { options: { host: "south-db" } });
  await fleet.control("PUT", "/builds", { cohorts: "manual" });
  await fleet.api(south, "POST", `/cohorts/${ids["south-cohort"]}/force_update`, {});
  await fleet.control("POST", "/builds/advance", { id: ids["south-cohort"], error: "the stream holds no events" });
}, 180_000);

afterAll(async () => {
  await fleet?.close();
  if (program) await rm(program, { recursive: true, force: true });
});

const drift = (args: string[], extra: NodeJS.ProcessEnv = {}) => audience(["drift", "--state", engineState, "--state", exported, "--state", sealed, "--accounts", accountsFile, ...args], { ...env, ...extra });

function byName(report: Report, account: string): Record<string, ResourceReport> {
  const found = report.accounts.find((a) => a.account === account);
  return Object.fromEntries((found?.resources ?? []).map((r) => [r.name, r]));
}

describe("audience drift over a fleet", () => {
  let report: Report;
  let json: string;

  beforeAll(async () => {
    const run = await drift(["--json"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(2);
    json = run.stdout;
    report = JSON.parse(json) as Report;
  }, 120_000);

  it("reports every account, the one with an expired key as its error, the others complete", () => {
    expect(report.accounts.map((a) => a.account)).toEqual(["default", "north", "south", "stale"]);
    const stale = report.accounts.find((a) => a.account === "stale")!;
    expect(stale.error).toMatch(/expired/i);
    expect(stale.resources).toEqual([]);
    expect(report.accounts.filter((a) => a.error === undefined).every((a) => a.resources.length > 0)).toBe(true);
  });

  it("gives each changed member with its camelCase path and both values", () => {
    const own = byName(report, "default");
    expect(own.kept?.status).toBe("in_sync");
    expect(own.renamed).toMatchObject({ status: "drifted", type: "Cohort", id: ids.renamed, urn: expect.stringContaining("::renamed") });
    expect(own.renamed?.changes).toEqual([
      { path: "name", expected: "Renamed", actual: "Renamed by hand" },
      { path: "minCount", expected: 2, actual: 3 },
    ]);
    expect(own.pipeline?.changes).toEqual([{ path: "population.cohortIds", expected: [ids.kept, expect.any(String), ids.shared], actual: [ids.kept, ids.shared] }]);
    expect(own.warehouse?.changes).toEqual([{ path: "options.host", expected: "db", actual: "db2" }]);
    expect(byName(report, "south")["south-warehouse"]?.changes).toEqual([{ path: "options.host", expected: "db", actual: "south-db" }]);
  });

  it("never shows a secret", () => {
    expect(json).not.toContain(WAREHOUSE_PASSWORD);
    expect(json).not.toContain(SOUTH_PASSWORD);
    for (const key of [fleet.parent.apiKey, fleet.north.apiKey, fleet.south.apiKey, fleet.stale.apiKey]) expect(json).not.toContain(key);
  });

  it("tells deleted from archived, and reports a failed build with its reason", () => {
    const own = byName(report, "default");
    expect(own.doomed).toMatchObject({ status: "missing", reason: expect.stringMatching(/deleted/) });
    // Archived by hand is drift of archivedAt, as refresh records it and `up` undoes it.
    expect(own.shelved).toMatchObject({
      status: "drifted",
      changes: [{ path: "archivedAt", expected: null, actual: expect.any(String) as string }, { path: "minCount", expected: null, actual: 9 }],
      reason: expect.stringMatching(/archived outside the program/),
    });
    expect(byName(report, "south")["south-cohort"]).toMatchObject({ status: "error", reason: expect.stringMatching(/the stream holds no events/) });
  });

  it("honours ignoreChanges from the state and the ignore file, negations included", () => {
    const own = byName(report, "default");
    expect(own.tolerant?.status).toBe("in_sync"); // minCount is in its ignoreChanges
    expect(own.exported?.status).toBe("in_sync"); // Cohort:*:name
    expect(byName(report, "north")["north-cohort"]?.status).toBe("in_sync");
    expect(own.renamed?.changes.map((c) => c.path)).toContain("name"); // !Cohort:renamed:name
  });

  it("finds what nobody manages, but not the service's own, lookups, nor what the ignore file names", () => {
    const unmanaged = (account: string) => report.accounts.find((a) => a.account === account)!.resources.filter((r) => r.status === "unmanaged");
    expect(unmanaged("default").map((r) => [r.type, r.name, r.id, r.urn])).toEqual([["Cohort", "Handmade", ids.handmade, undefined]]);
    expect(unmanaged("north").map((r) => r.name)).toEqual(["North handmade"]);
    expect(unmanaged("south")).toEqual([]);
    expect(byName(report, "south")["sealed-warehouse"]?.status).toBe("unknown");
  });

  it("sums it up, with coverage managed / (managed + unmanaged)", () => {
    expect(report.summary).toEqual({ in_sync: 4, drifted: 5, missing: 1, error: 1, unknown: 1, contested: 0, unmanaged: 2, coverage: 0.8571, failed_accounts: 1 });
  });

  it("prints text grouped by status with `path: expected -> actual`, no colour off a terminal", { timeout: 60_000 }, async () => {
    const run = await drift([]);
    expect(run.code).toBe(2);
    expect(run.stdout).toContain('name: "Renamed" -> "Renamed by hand"');
    expect(run.stdout).toMatch(/account stale of fleet\/\S+ \(.*\)\n {2}not read: .*expired/i);
    expect(run.stdout).toMatch(/4 in sync, 5 drifted, 1 missing, 1 error, 1 unknown, 0 contested, 2 unmanaged; coverage 85\.7% \(12 managed of 14\); 1 account not read/);
    expect(run.stdout).not.toContain("\u001b[");
  });

  it("writes Markdown for a pull request and GitHub annotations on the declaring lines", { timeout: 90_000 }, async () => {
    const markdown = await drift(["--format", "markdown"]);
    expect(markdown.stdout).toContain("## Drift report");
    expect(markdown.stdout).toMatch(/\| drifted \| Cohort renamed \| `[0-9a-f-]{36}` \| `name: "Renamed" -> "Renamed by hand"`<br>`minCount: 2 -> 3` \|/);
    const github = await drift(["--format", "github"], { GITHUB_WORKSPACE: REPO_ROOT });
    const source = await readFile(join(program, "index.ts"), "utf8");
    const line = source.split("\n").findIndex((l) => l.includes('new audience.Cohort("renamed"')) + 1;
    const file = `${program.slice(REPO_ROOT.length)}/index.ts`;
    expect(github.stdout).toContain(`::warning file=${file},line=${line},col=`);
    expect(github.stdout).toMatch(/::error file=[^\n]*title=drift%3A Cohort doomed missing/);
    expect(github.stdout).toMatch(/::error title=drift%3A account stale of fleet\/\S+ not read::/);
  });

  it("exits 0 when nothing matches --fail-on, 2 when something does", { timeout: 120_000 }, async () => {
    const noMissing = join(program, "no-missing.ignore");
    await writeFile(noMissing, "Cohort:doomed\nCohort:shelved\n");
    expect((await drift(["--fail-on", "missing", "--ignore", noMissing])).code).toBe(0);
    expect((await drift(["--fail-on", "missing"])).code).toBe(2);
    expect((await drift(["--fail-on", "sideways"])).code).toBe(1);
  });

  it("honours a rule on archivedAt: the archive accepted, the archived resource's other changes still reported", { timeout: 120_000 }, async () => {
    const archiveAccepted = join(program, "archive-accepted.ignore");
    await writeFile(archiveAccepted, "Cohort:shelved:archivedAt\n");
    const run = await drift(["--json", "--ignore", archiveAccepted]);
    const shelved = (JSON.parse(run.stdout) as Report).accounts.flatMap((a) => a.resources).find((r) => r.name === "shelved");
    expect(shelved).toMatchObject({ status: "drifted", changes: [{ path: "minCount", expected: null, actual: 9 }] });
    expect(shelved?.reason).toBeUndefined();
  });

  it("splits the accounts over shards that merge back into the unsharded report", { timeout: 120_000 }, async () => {
    const dir = await mkdtemp(join(program, "shards-"));
    const shards = ["1/3", "2/3", "3/3"];
    const runs = await Promise.all(shards.map((shard) => drift(["--json", "--shard", shard])));
    const files = shards.map((shard) => join(dir, `${shard.replace("/", "-of-")}.json`));
    const seen: string[] = [];
    for (const [i, run] of runs.entries()) {
      expect([0, 2]).toContain(run.code);
      expect((JSON.parse(run.stdout) as Report).shard).toBe(shards[i]);
      seen.push(...(JSON.parse(run.stdout) as Report).accounts.map((a) => a.account));
      await writeFile(files[i]!, run.stdout);
    }
    expect(seen.sort()).toEqual(["default", "north", "south", "stale"]);
    const merged = await audience(["drift", "merge", ...files]);
    expect(merged.code).toBe(2);
    expect(JSON.parse(merged.stdout)).toEqual(report);
    // Its own --format and --fail-on, not the scan's, as a CI job's report step gives them.
    const markdown = await audience(["drift", "merge", ...files, "--format", "markdown", "--fail-on", "unmanaged"]);
    expect(markdown.stdout).toMatch(/^## /);
    expect(markdown.code).toBe(report.accounts.some((a) => a.resources.some((r) => r.status === "unmanaged")) ? 2 : 0);
    expect((await audience(["drift", "merge", ...files, "--fail-on", "sideways"])).code).toBe(1);
    // A shard given twice would count its accounts twice, a missing one pass for a fleet without its accounts: both
    // refused, naming the shards.
    const twice = await audience(["drift", "merge", ...files, files[1]!]);
    expect([twice.code, twice.stderr]).toEqual([1, `audience drift merge: shard 2/3 given 2 times (${files[1]}, ${files[1]}): give each of shards 1/3 to 3/3 once\n`]);
    const partial = await audience(["drift", "merge", files[0]!, "--format", "text"]);
    expect([partial.code, partial.stdout, partial.stderr]).toEqual([1, "", "audience drift merge: shards 2/3, 3/3 missing: give each of shards 1/3 to 3/3 once\n"]);
    const unsharded = join(dir, "unsharded.json");
    await writeFile(unsharded, json);
    expect((await audience(["drift", "merge", unsharded])).stderr).toMatch(/^audience drift merge: \S+unsharded\.json is not the report of a shard/);
  });

  it("refuses a file that is no state, and names it", { timeout: 60_000 }, async () => {
    const file = join(program, "not-a-state.json");
    await writeFile(file, JSON.stringify({ resources: [] }));
    const run = await audience(["drift", "--state", file], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`--state ${file}: neither a state file of \`audience run\` nor a \`pulumi stack export\` document`);
  });
});

describe("states exported to a folder, their programs below the current directory", () => {
  // A CI job's layout: `states/dev.json` beside the checkout's programs; the stack's config is its program's.
  let work: string;
  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), "audience-drift-states-"));
    await mkdir(join(work, "states"));
    await mkdir(join(work, "programs/fleet"), { recursive: true });
    await cp(engineState, join(work, "states/dev.json"));
    for (const file of ["Pulumi.yaml", "Pulumi.dev.yaml"]) await cp(join(program, file), join(work, "programs/fleet", file));
  });
  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });
  const fromWork = (cwd: string) => audience(["drift", "--json", join(work, "states/dev.json")], { PULUMI_CONFIG_PASSPHRASE: PASSPHRASE, AUDIENCE_API_KEY: "", AUDIENCE_BASE_URL: "" }, cwd);

  it("reads each account of a dynamic-face stack with its program's Pulumi.<stack>.yaml", { timeout: 60_000 }, async () => {
    const run = await fromWork(work);
    const found = JSON.parse(run.stdout) as Report;
    expect(found.accounts.map((a) => [a.account, a.error])).toEqual([["default", undefined], ["north", undefined]]);
    expect(byName(found, "default").renamed?.status).toBe("drifted");
  });

  it("says which file it looked in when the key is not there", { timeout: 60_000 }, async () => {
    await rm(join(work, "programs/fleet/Pulumi.dev.yaml"));
    const run = await fromWork(work);
    expect((JSON.parse(run.stdout) as Report).accounts[0]?.error).toBe(`no API key: set audience:apiKey (as a secret) or AUDIENCE_API_KEY (config looked for in ${join(work, "programs/fleet/Pulumi.dev.yaml")} and ${join(work, "states/Pulumi.dev.yaml")}: neither exists)`);
    // No program of the project below the current directory: beside the state, and said so.
    const away = await fromWork(join(work, "states"));
    expect((JSON.parse(away.stdout) as Report).accounts[0]?.error).toBe(`no API key: set audience:apiKey (as a secret) or AUDIENCE_API_KEY (config looked for in ${join(work, "states/Pulumi.dev.yaml")}: it does not exist; no program of project fleet above the state or below the current directory)`);
  });
});

describe("members the state holds encrypted", () => {
  it("are unknown, with the reason, never in sync", { timeout: 90_000 }, async () => {
    // Only this stack is given: the south account's other resources are left out by an ignore file.
    const ignore = join(program, "south.ignore");
    await writeFile(ignore, "*:South*\n");
    const run = await audience(["drift", "--state", sealed, "--accounts", accountsFile, "--ignore", ignore, "--json"], env);
    expect(run.code, run.stderr + run.stdout).toBe(0); // unknown is not among the default --fail-on
    const warehouse = byName(JSON.parse(run.stdout) as Report, "south")["sealed-warehouse"];
    expect(warehouse).toMatchObject({ status: "unknown", reason: expect.stringMatching(/options\.password \(encrypted by the service secrets provider: export the stack with --show-secrets\)/) });
    expect((await audience(["drift", "--state", sealed, "--accounts", accountsFile, "--ignore", ignore, "--fail-on", "unknown"], env)).code).toBe(2);
  });

  it("without the passphrase, a connection's password is not compared but its other members are", { timeout: 60_000 }, async () => {
    const run = await audience(["drift", "--state", engineState, "--accounts", accountsFile, "--json"], { ...env, PULUMI_CONFIG_PASSPHRASE: "" });
    const own = byName(JSON.parse(run.stdout) as Report, "default");
    // The host changed by hand shows; only the encrypted password is left out, and said so.
    expect(own.warehouse).toMatchObject({
      status: "drifted",
      changes: [{ path: "options.host", expected: "db", actual: "db2" }],
      reason: expect.stringMatching(/not compared: options\.password \(encrypted: set PULUMI_CONFIG_PASSPHRASE/),
    });
    expect(own.kept?.status).toBe("in_sync");
  });
});
