// `audience generate`: a program adopting an account's resources, which the local engine then applies as a no-op,
// `audience drift` then finds in sync, and `destroy` cannot delete (every adopted resource is protected).
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateProgram } from "../../provider/cli/generate.ts";
import { readSettings } from "../../provider/runtime/lifecycle/settings.ts";
import { REPO_ROOT, startWorld, type World } from "./harness.ts";

let world: World;
const WAREHOUSE_PASSWORD = "adopted-password-51c2";
let dir: string;
const ids: Record<string, string> = {};

beforeAll(async () => {
  world = await startWorld();
  const post = async (path: string, body: unknown) => ((await world.api("POST", path, body)) as { id: string }).id;
  const leads = ((await world.api("GET", "/cohorts")) as { id: string; name: string }[]).find((c) => c.name === "Leads")!.id;
  ids.leads = leads;
  ids.cohort = await post("/cohorts", { name: "Big spenders", stream_name: "transactions", stream_conditions: [{ property: "amount", _gte: 100 }] });
  ids.scope = await post("/scopes", { name: "Pipeline", population: { cohort_ids: [ids.cohort, leads] }, payload: { cohort_ids: [ids.cohort] }, preview: true });
  ids.target = await post("/targets", { name: "CSV", scope_id: ids.scope, representation: { mode: "identified" }, options: { type: "hosted_csv" } });
  ids.connection = await post("/connections", { name: "Warehouse", options: { type: "postgres", host: "db.example.com", port: 5432, database: "d", schema: "s", user: "u", password: WAREHOUSE_PASSWORD } });
  // A sub-account of the key's account, and an uploaded file: neither is adopted unless asked (uploads only).
  const current = (await world.api("GET", "/accounts/current")) as { id: string };
  ids.own = current.id;
  ids.sub = (await world.control.createAccount({ name: "Sub brand", parent_id: current.id })).id;
  const upload = await fetch(`${world.emulator.url}/uploads/crm/people.csv`, { method: "POST", headers: { authorization: `Bearer ${world.emulator.apiKey}`, "content-type": "text/csv" }, body: "id,name\n1,Ann\n" });
  if (!upload.ok) throw new Error(`upload: ${upload.status}`);
  dir = await mkdtemp(join(REPO_ROOT, "test/provider/.generated-"));
});
afterAll(async () => {
  await world?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const settings = () => readSettings(() => undefined, { AUDIENCE_API_KEY: world.emulator.apiKey, AUDIENCE_BASE_URL: world.emulator.url });

function audience(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, ["--conditions=source", "provider/cli/main.ts", ...args], {
      cwd: REPO_ROOT, env: { ...process.env, NODE_OPTIONS: "--conditions=source", PULUMI_CONFIG_PASSPHRASE: "test", ...env },
    }, (_error, stdout, stderr) => resolve({ code: child.exitCode, stdout, stderr }));
  });
}

describe("audience generate", () => {
  let source: string;

  it("declares each resource adopted by id and protected, references as code, only members that are not defaults", async () => {
    const program = await generateProgram(settings());
    source = program.source;
    // The connection's password, which the service never answers, is read from secret config.
    expect(program.secretConfig).toEqual(["connection_warehouse_password"]);
    expect(source).toContain(`adoptId: "${ids.scope}"`);
    // A cohort the service made (Leads) is referenced through a lookup by name, never by this account's id.
    expect(source).toContain('const cohort_leads = audience.getCohortOutput({ name: "Leads" });\n');
    expect(source).toContain("cohortIds: [cohort_big_spenders.id, cohort_leads.id]");
    expect(source).not.toContain(ids.leads);
    expect(source).toContain("scopeId: scope_pipeline.id");
    expect(source).not.toMatch(/new audience\.Cohort\("cohort-leads"/); // the service's own cohorts are not adopted
    expect(source.match(/new audience\.\w+\(/g)).toHaveLength(4);
    expect(source.match(/\}, \{ protect: true \}\);/g)).toHaveLength(4);
    // A credential the service never answers is read from secret config.
    expect(source).toContain('password: config.requireSecret("connection_warehouse_password")');
    expect(source).not.toContain("explore"); // false by default
    expect(source).not.toContain(ids.sub); // a sub-account is never adopted
    expect(source).not.toContain(ids.own);
    expect(source).not.toContain("people.csv"); // uploads only when asked
    expect(source).toContain("export const ids = {\n  connection_warehouse: connection_warehouse.id,\n  cohort_big_spenders: cohort_big_spenders.id,\n  scope_pipeline: scope_pipeline.id,\n  target_csv: target_csv.id,\n};");
    expect(source.match(/^export /gm)).toHaveLength(1);
  });

  it("adopts with one write, the password, then applies without a change, is in sync for drift, and cannot be destroyed", { timeout: 180_000 }, async () => {
    await writeFile(join(dir, "index.ts"), source);
    await writeFile(join(dir, "Pulumi.yaml"), "name: adopted\nruntime:\n  name: nodejs\n  options:\n    typescript: false\n    nodeargs: --conditions=source --require=pulumi-audience/require-node\nmain: index.ts\n");
    const mark = await world.mark();
    const config = ["--cwd", dir, "--yes", "-c", `audience:baseUrl=${world.emulator.url}`, "--secret", `audience:apiKey=${world.emulator.apiKey}`, "--secret", `connection_warehouse_password=${WAREHOUSE_PASSWORD}`];
    // The preview already knows each adopted resource's id: it is the one taken over.
    const preview = await audience(["run", "preview", "--json", ...config]);
    expect(preview.code, preview.stderr + preview.stdout).toBe(0);
    expect((JSON.parse(preview.stdout) as { outputs: { ids: unknown } }).outputs.ids).toEqual({
      connection_warehouse: ids.connection, cohort_big_spenders: ids.cohort, scope_pipeline: ids.scope, target_csv: ids.target,
    });
    const up = await audience(["run", "up", ...config]);
    expect(up.code, up.stderr + up.stdout).toBe(0);
    // One write: the connection's password, which the service answers as <secret>, sent as a create would send it.
    expect((await world.serviceCalls(mark)).filter((c) => c.method !== "GET").map((c) => `${c.method} ${c.path}`)).toEqual([`PATCH /connections/${ids.connection}`]);
    const again = await world.mark();
    const noop = await audience(["run", "up", ...config]);
    expect(noop.code, noop.stderr + noop.stdout).toBe(0);
    expect((await world.serviceCalls(again)).filter((c) => c.method !== "GET")).toEqual([]);

    const drift = await audience(["drift", "--state", join(dir, ".audience/state/dev.json"), "--json"], { AUDIENCE_API_KEY: world.emulator.apiKey, AUDIENCE_BASE_URL: world.emulator.url });
    expect(drift.code, drift.stderr).toBe(0);
    const report = JSON.parse(drift.stdout) as { accounts: { resources: { name: string; status: string }[] }[] };
    // The report follows the state's order, in which independent steps are recorded as they finish: sorted here.
    expect(report.accounts.flatMap((a) => a.resources.map((r) => [r.name, r.status])).sort()).toEqual([
      ["cohort-big-spenders", "in_sync"], ["connection-warehouse", "in_sync"], ["scope-pipeline", "in_sync"], ["target-csv", "in_sync"],
    ]);

    const destroy = await audience(["run", "destroy", ...config]);
    expect(destroy.code).toBe(1);
    // Listed in the state's order, which is the order the adoptions finished in.
    expect(destroy.stderr + destroy.stdout).toMatch(/cannot destroy: 4 protected resources:\n(.*\n)*.*urn:pulumi:dev::adopted::pulumi-nodejs:dynamic\/audience:Cohort::cohort-big-spenders\n/);
    for (const line of (destroy.stderr + destroy.stdout).split("\n")) expect(line.length).toBeLessThan(200);
    expect((await world.serviceCalls(again)).filter((c) => c.method !== "GET")).toEqual([]);
  });

  it("--out writes a program that runs as written: package.json of an ES module depending on this package", { timeout: 60_000 }, async () => {
    const out = join(dir, "out");
    const run = await audience(["generate", "--out", out, "--only", "cohorts"], { AUDIENCE_API_KEY: world.emulator.apiKey, AUDIENCE_BASE_URL: world.emulator.url });
    expect(run.code, run.stderr).toBe(0);
    const manifest = JSON.parse(await readFile(join(out, "package.json"), "utf8")) as { type: string; dependencies: Record<string, string> };
    expect(manifest.type).toBe("module");
    expect(Object.keys(manifest.dependencies).sort()).toEqual(["@pulumi/pulumi", "pulumi-audience"]);
    expect(await readFile(join(out, "Pulumi.yaml"), "utf8")).toMatch(/typescript: false/);
    expect(await readFile(join(out, "index.ts"), "utf8")).toContain("new audience.Cohort(");
  });

  it("without a key in the environment says what it reads: never a stack's config", { timeout: 60_000 }, async () => {
    const run = await audience(["generate", "--only", "cohorts"], { AUDIENCE_API_KEY: "", AUDIENCE_BASE_URL: world.emulator.url });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe("audience generate: no API key: generate reads the account from AUDIENCE_API_KEY and AUDIENCE_BASE_URL, or another from --accounts with --account; it reads no stack's config\n");
  });

  it("--out keeps a program already there, unless --force", { timeout: 60_000 }, async () => {
    const out = join(dir, "theirs");
    await mkdir(out, { recursive: true });
    await writeFile(join(out, "index.ts"), "// the user's own program\n");
    const env = { AUDIENCE_API_KEY: world.emulator.apiKey, AUDIENCE_BASE_URL: world.emulator.url };
    const refused = await audience(["generate", "--out", out, "--only", "cohorts"], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(`audience generate: ${join(out, "index.ts")} is already there: give another --out, or --force to replace it\n`);
    expect(await readFile(join(out, "index.ts"), "utf8")).toBe("// the user's own program\n");
    const forced = await audience(["generate", "--out", out, "--only", "cohorts", "--force"], env);
    expect(forced.code, forced.stderr).toBe(0);
    expect(await readFile(join(out, "index.ts"), "utf8")).toContain("new audience.Cohort(");
  });

  it("adopts uploaded files only when asked, saving their bytes beside the program", async () => {
    const saved: Record<string, string> = {};
    const { source: withUploads } = await generateProgram(settings(), { saveUpload: async (path, bytes) => { saved[path] = Buffer.from(bytes).toString(); } });
    expect(saved).toEqual({ "uploads/crm/people.csv": "id,name\n1,Ann\n" });
    expect(withUploads).toMatch(/new audience\.Upload\("upload-people-csv", \{\n {2}directory: "crm",\n {2}filename: "people\.csv",\n {2}source: "uploads\/crm\/people\.csv",\n\}, \{ protect: true \}\);/);
    await expect(generateProgram(settings(), { collections: ["accounts"] })).rejects.toThrow(/--only: accounts cannot be adopted by a program/);
  });

  it("names a resource by its name with its accents' letters kept, or, with no name, by its URL", async () => {
    await world.api("POST", "/cohorts", { name: "2024 Q1 — Élite \"VIP\"", stream_name: "transactions" });
    await world.api("POST", "/webhook_endpoints", { url: "https://hooks.example.com/audience/events", enabled_events: ["resource.errored"] });
    const { source: named } = await generateProgram(settings(), { collections: ["cohorts", "webhook_endpoints"] });
    expect(named).toContain('const cohort_2024_q1_elite_vip = new audience.Cohort("cohort-2024-q1-elite-vip", {');
    expect(named).toContain('const webhookendpoint_hooks_example_com_audience_events = new audience.WebhookEndpoint("webhookendpoint-hooks-example-com-audience-events", {');
  });
});
