// `audience drift` against the emulator: a stack export whose resources were changed, removed or left alone, made
// through the lifecycle the dynamic-provider host serves.
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { driftReport } from "../../provider/cli/drift/index.ts";
import { REPO_ROOT, startWorld, type Props, type World } from "./harness.ts";

let world: World;
let document: unknown;
let file: string;

const SECRET_SIG = "4dabf18193072939515e22adb298388d";

beforeAll(async () => {
  world = await startWorld();
  const resources: Props[] = [];
  const declare = async (name: string, type: string, collection: string, inputs: Props) => {
    // What the Pulumi CLI records: check's inputs (the family the shim names recorded as `__kind`).
    const { inputs: full } = await world.host.check({}, world.inputs(collection, inputs));
    const created = await world.host.create(full);
    resources.push({ urn: `urn:pulumi:dev::drifty::pulumi-nodejs:dynamic/audience:${type}::${name}`, type: `pulumi-nodejs:dynamic/audience:${type}`, id: created.id, inputs: full, outputs: created.properties });
    return created.id;
  };
  const untouched = await declare("untouched", "Cohort", "cohorts", { name: "Untouched" });
  const edited = await declare("edited", "Cohort", "cohorts", { name: "Edited", minCount: 2 });
  const removed = await declare("removed", "Cohort", "cohorts", { name: "Removed" });
  await declare("warehouse", "Connection", "connections", { name: "Warehouse", options: { type: "postgres", host: "db", port: 5432, database: "d", schema: "s", user: "u", password: "pw" } });
  // As `pulumi stack export` writes secrets without --show-secrets: encrypted, unreadable.
  const connection = resources.at(-1)!;
  for (const side of ["inputs", "outputs"] as const) {
    const values = connection[side] as Props;
    values.options = { [SECRET_SIG]: "1b47061264138c4ac30d75fd1eb44270", ciphertext: `v1:${side}` };
  }
  await world.api("PATCH", `/cohorts/${edited}`, { name: "Edited elsewhere", min_count: 3 });
  await world.api("DELETE", `/cohorts/${removed}`);
  void untouched;
  document = { version: 3, deployment: { resources: [{ urn: "urn:pulumi:dev::drifty::pulumi:pulumi:Stack::drifty-dev", type: "pulumi:pulumi:Stack" }, ...resources] } };
  file = join(await mkdtemp(join(tmpdir(), "drift-")), "stack.json");
  await writeFile(file, JSON.stringify(document));
});
afterAll(async () => {
  await world?.close();
  if (file) await rm(dirname(file), { recursive: true, force: true });
});

describe("audience drift", () => {
  it("reports each resource as in sync, drifted (with the values), missing, or unknown when its export hides members", async () => {
    const report = await driftReport({ states: [file], env: { AUDIENCE_API_KEY: world.emulator.apiKey, AUDIENCE_BASE_URL: world.emulator.url } });
    const resources = report.accounts[0]!.resources.filter((r) => r.status !== "unmanaged");
    expect(resources.map((r) => [r.name, r.status, r.changes])).toEqual([
      ["untouched", "in_sync", []],
      ["edited", "drifted", [{ path: "name", expected: "Edited", actual: "Edited elsewhere" }, { path: "minCount", expected: 2, actual: 3 }]],
      ["removed", "missing", []],
      // The export holds the options encrypted: not comparable, so never reported in sync.
      ["warehouse", "unknown", []],
    ]);
  });

  it("runs from the command line, exiting 2 when something drifted", async () => {
    const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(process.execPath, ["--conditions=source", "provider/cli/main.ts", "drift", file], {
        cwd: REPO_ROOT, env: { ...process.env, AUDIENCE_API_KEY: world.emulator.apiKey, AUDIENCE_BASE_URL: world.emulator.url },
      }, (_error, stdout, stderr) => resolve({ code: child.exitCode, stdout, stderr }));
    });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(2);
    expect(result.stdout).toMatch(/~ Cohort edited .*\n {8}name: "Edited" -> "Edited elsewhere"\n {8}minCount: 2 -> 3/);
    expect(result.stdout).toMatch(/- Cohort removed .*: deleted outside the program/);
    expect(result.stdout).not.toContain(world.emulator.apiKey);
  });
});
