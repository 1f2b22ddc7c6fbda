// `audience generate`: a program adopting an account's resources, which the local engine then applies as a no-op.
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateProgram } from "../../provider/cli/generate.ts";
import { readSettings } from "../../provider/runtime/lifecycle/settings.ts";
import { REPO_ROOT, startWorld, type World } from "./harness.ts";

let world: World;
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
  dir = await mkdtemp(join(REPO_ROOT, "test/provider/.generated-"));
});
afterAll(async () => {
  await world?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("audience generate", () => {
  it("declares each resource adopted by id, references as code, and applies without a change", async () => {
    const settings = readSettings(() => undefined, { AUDIENCE_API_KEY: world.emulator.apiKey, AUDIENCE_BASE_URL: world.emulator.url });
    const source = await generateProgram(settings, { collections: ["targets", "scopes", "cohorts"] });
    expect(source).toContain(`adoptId: "${ids.scope}"`);
    expect(source).toMatch(/cohortIds: \[cohort_big_spenders\.id, "[0-9a-f-]{36}"\]/);
    expect(source).toContain("scopeId: scope_pipeline.id");
    expect(source).not.toContain(`adoptId: "${ids.leads}"`); // the service's own cohorts are not adopted

    await writeFile(join(dir, "index.ts"), source);
    await writeFile(join(dir, "Pulumi.yaml"), "name: adopted\nruntime:\n  name: nodejs\n  options:\n    typescript: false\n    nodeargs: --conditions=source\nmain: index.ts\n");
    const mark = await world.mark();
    const result = await new Promise<{ error: Error | null; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, ["--conditions=source", "provider/cli/main.ts", "run", "up", "--cwd", dir, "--yes",
        "-c", `audience:baseUrl=${world.emulator.url}`, "--secret", `audience:apiKey=${world.emulator.apiKey}`], {
        cwd: REPO_ROOT, env: { ...process.env, NODE_OPTIONS: "--conditions=source", PULUMI_CONFIG_PASSPHRASE: "test" },
      }, (error, stdout, stderr) => resolve({ error, stdout, stderr }));
    });
    expect(result.error, result.stderr + result.stdout).toBeNull();
    const writes = (await world.serviceCalls(mark)).filter((c) => c.method !== "GET");
    expect(writes).toEqual([]);
  });
});
