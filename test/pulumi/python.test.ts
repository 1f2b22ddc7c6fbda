// examples/other-languages/adaptive-discounting-python through the real `pulumi` CLI and its Python language host,
// with the SDK generated from the plugin's schema installed into a virtualenv as its README says: up, no change on
// preview, refresh or a second up (which writes nothing), a config change shown with its values, `pulumi import` of
// a target made by hand (the code it prints, pasted, changes nothing), destroy leaving nothing. The warehouse password
// is never written or printed in plaintext.
import { execFile } from "node:child_process";
import { appendFileSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { emulatorControl } from "pulumi-audience/emulator";
import { PLUGIN_IN_PACKAGE, pulumiCli, pulumiStack, type PulumiStack, type RunOptions, skipReason, stackFilesHolding } from "./cli.ts";
import { emulatedService, legacyTarget } from "./emulated.ts";
import { pythonVirtualenv } from "./python.ts";
import { generatedSdk } from "./sdks.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const EXAMPLE = join(ROOT, "examples", "other-languages", "adaptive-discounting-python");
const PASSWORD = "warehouse-password-9c2e7a";
const cli = pulumiCli();
const service = emulatedService();
const { createAccount, takeWrites, list } = service;

async function read(apiKey: string, path: string): Promise<Record<string, unknown>> {
  const res = await service.get(apiKey, path);
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

/** The virtualenv's bin folder: the example's requirements and the SDK, for both programs here. */
let venv: string;
beforeAll(async () => {
  if (cli.dir) venv = await pythonVirtualenv(join(EXAMPLE, "requirements.txt"));
}, 300_000);

describe(`examples/other-languages/adaptive-discounting-python through pulumi${skipReason()}`, { timeout: 400_000 }, () => {
  if (!cli.dir) return;
  let stack: PulumiStack;
  const keys = { apiKey: "", northKey: "" };
  /** What every command printed, to look for the password in. */
  const printed: string[] = [];
  /** Runs pulumi with the virtualenv's python first on PATH, as `source venv/bin/activate` does. */
  const must = async (args: readonly string[], o: RunOptions = {}) => {
    const run = await stack.must(args, { ...o, env: { PATH: [venv, stack.env["PATH"]].join(delimiter), ...o.env } });
    printed.push(run.output);
    return run;
  };

  it("goes up from empty; preview, refresh and a second up find no change and write nothing", async () => {
    keys.apiKey = await createAccount("python-default");
    keys.northKey = await createAccount("python-north");
    stack = await pulumiStack({ program: EXAMPLE });
    // Where the example's Pulumi.yaml has the host look for its virtualenv (`venv`, as its README makes it).
    symlinkSync(dirname(venv), join(stack.dir, "venv"));
    // The plugin as a path in the project (this package's installation), as test/pulumi/native.test.ts finds it.
    appendFileSync(join(stack.dir, "Pulumi.yaml"), PLUGIN_IN_PACKAGE);
    await stack.config({ "audience:baseUrl": service.baseUrl(), northBaseUrl: service.baseUrl() });
    await stack.config({ "audience:apiKey": keys.apiKey, northApiKey: keys.northKey, warehousePassword: PASSWORD }, true);

    const up = await must(["up", "--yes"]);
    expect(up.output).toMatch(/\+ \d+ created/);
    const outputs = await stack.outputs();
    expect((await list(keys.apiKey, "scopes")).map((s) => s.id)).toEqual([outputs["scopeId"]]);
    expect((await list(keys.apiKey, "connections")).map((s) => s.id)).toEqual([outputs["warehouseId"]]);
    expect((await list(keys.northKey, "cohorts")).map((s) => s.id)).toContain(outputs["northLeadsId"]);

    await takeWrites();
    await must(["preview", "--expect-no-changes"]);
    await must(["refresh", "--yes", "--skip-preview", "--expect-no-changes"]);
    await must(["up", "--yes", "--skip-preview", "--expect-no-changes"]);
    expect(await takeWrites()).toEqual([]);
  });

  it("a config change shows its values in preview --diff and applies as patches", async () => {
    await stack.config({ enabled: "true", warehouseHost: "warehouse-2.example.com" });
    const preview = await must(["preview", "--diff"]);
    expect(preview.output).toMatch(/~ preview\s*: true => false/);
    expect(preview.output).toMatch(/~ host\s*: "warehouse\.example\.com" => "warehouse-2\.example\.com"/);
    await takeWrites();
    await must(["up", "--yes", "--skip-preview"]);
    const outputs = await stack.outputs();
    expect((await takeWrites()).sort()).toEqual([`PATCH /connections/${outputs["warehouseId"]}`, `PATCH /scopes/${outputs["scopeId"]}`]);
    expect(await read(keys.apiKey, `scopes/${outputs["scopeId"]}`)).toMatchObject({ preview: false });
    expect(await read(keys.apiKey, `connections/${outputs["warehouseId"]}`)).toMatchObject({ options: { host: "warehouse-2.example.com", password: "<secret>" } });
    await must(["preview", "--expect-no-changes"]);
  });

  it("pulumi import adopts a target made on the service; the code it prints, or the README's, then changes nothing", async () => {
    const scopeId = (await stack.outputs())["scopeId"] as string;
    const legacy = await service.create(keys.apiKey, "targets", legacyTarget(scopeId));
    const code = join(stack.dir, "imported.py.txt");
    await must(["import", "audience:index:Target", "legacy-csv", legacy, "--out", code, "--protect=false", "--yes"]);
    const resources = (await stack.exported()).deployment.resources ?? [];
    const imported = resources.find((r) => r.urn.endsWith("::legacy-csv"))!;
    const created = resources.find((r) => r.urn.endsWith("::adaptive-discounting-csv"))!;
    expect(imported.id).toBe(legacy);
    // What create records, but for the name.
    expect(imported.inputs).toEqual({ ...created.inputs, name: "Legacy CSV" });
    // The printed program, pasted below the program's own (its imports again, harmless in Python).
    const main = join(stack.dir, "__main__.py");
    const program = readFileSync(main, "utf8");
    const printed = readFileSync(code, "utf8");
    expect(printed).toContain("import pulumi_audience as audience");
    expect(printed).toContain('audience.Target("legacy-csv"');
    writeFileSync(main, `${program}\n${printed}`);
    await must(["preview", "--expect-no-changes"]);
    // The README's declaration instead, which names the scope rather than its id.
    const declaration = /```python\n([\s\S]*?)```/.exec(readFileSync(join(EXAMPLE, "README.md"), "utf8"))?.[1];
    expect(declaration).toContain('"legacy-csv"');
    writeFileSync(main, `${program}\n${declaration}`);
    await must(["preview", "--expect-no-changes"]);
    // An import records no dependency; the up after the declaration does (destroy then deletes the target first).
    await takeWrites();
    await must(["up", "--yes", "--skip-preview", "--expect-no-changes"]);
    expect(await takeWrites()).toEqual([]);
    const scope = resources.find((r) => r.urn.endsWith("::adaptive-discounting"))!;
    expect(((await stack.exported()).deployment.resources ?? []).find((r) => r.urn === imported.urn)?.dependencies).toContain(scope.urn);
  });

  it("destroy leaves nothing on the service; the password was never written or printed in plaintext", async () => {
    const outputs = await stack.outputs();
    const targets = await list(keys.apiKey, "targets");
    expect(targets).toHaveLength(2);
    await must(["destroy", "--yes", "--skip-preview"]);
    expect(((await stack.exported()).deployment.resources ?? []).filter((r) => r.custom)).toEqual([]);
    for (const collection of ["scopes", "targets", "connections"]) expect(await list(keys.apiKey, collection)).toEqual([]);
    expect((await list(keys.northKey, "cohorts")).map((c) => c.id)).not.toContain(outputs["northLeadsId"]);
    for (const target of targets) expect((await service.get(keys.apiKey, `targets/${target.id}`)).status).toBe(404);

    const exported = await must(["stack", "export"]);
    expect(exported.stdout).not.toContain(PASSWORD);
    for (const output of printed) expect(output).not.toContain(PASSWORD);
    expect(stackFilesHolding(stack, [PASSWORD])).toEqual([]);
  });
});

describe(`every condition operator set from Python (test/pulumi/fixtures/python-members)${skipReason()}`, { timeout: 300_000 }, () => {
  if (!cli.dir) return;

  it("the generated SDK has a Python name for every member of every type and resource, no two alike", async () => {
    const schemaFile = join(dirname(generatedSdk("python")), "schema.json");
    const schema = JSON.parse(readFileSync(schemaFile, "utf8")) as { types: Record<string, { type?: string }>; resources: object };
    const { stdout } = await promisify(execFile)(join(venv, "python"), [join(import.meta.dirname, "fixtures", "python-sdk-names.py"), schemaFile]);
    const report = JSON.parse(stdout) as { checked: { types: number; operators: number }; problems: string[] };
    expect(report.problems).toEqual([]);
    const objects = Object.values(schema.types).filter((t) => t.type === "object").length;
    expect(report.checked.types).toBe(objects + Object.keys(schema.resources).length + 1);
    expect(report.checked.operators).toBeGreaterThan(0);
  });

  it("a date condition, an attribute condition and a target filter read back from the service as written", async () => {
    // An account with an identity graph, which attribute filters of targets need.
    const { id, api_key: apiKey } = await emulatorControl(new URL(service.baseUrl()).origin).createAccount({ name: "python-members" });
    const graph = await fetch(`${service.baseUrl()}/accounts/${id}`, { method: "PATCH", headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/merge-patch+json" }, body: JSON.stringify({ identity_graph: "2026-01" }) });
    expect(graph.status).toBe(200);

    const stack = await pulumiStack({ program: join(import.meta.dirname, "fixtures", "python-members") });
    const env = { PATH: [venv, stack.env["PATH"]].join(delimiter) };
    await stack.config({ "audience:baseUrl": service.baseUrl() });
    await stack.config({ "audience:apiKey": apiKey }, true);
    await stack.must(["up", "--yes"], { env });
    const { cohortId, targetId } = (await stack.outputs()) as { cohortId: string; targetId: string };

    const cohort = await read(apiKey, `cohorts/${cohortId}`);
    expect(cohort["stream_conditions"]).toEqual([
      { property: "datetime", _on_or_after: "2025-01-01", _on_or_before: "2025-12-31" },
      { property: "category", _eq: "apparel" },
      { property: "category", _in: ["apparel", "home"] },
      { property: "category", _nin: ["grocery"] },
      { property: "product", _matches: "^sh" },
      { property: "amount", _gt: 10.5 },
      { property: "amount", _gte: 20 },
      { property: "amount", _lt: 500 },
      { property: "amount", _lte: 499.5 },
      { property: "channel", _null: false },
      { property: "channel", _nnull: true, optional: true },
    ]);
    expect(cohort["attributes"]).toEqual([
      { name: "ig/age", _eq: 40 },
      { name: "ig/state", _in: ["CA", "NY"] },
      { name: "ig/state", _nin: ["TX"] },
      { name: "ig/city", _matches: "^San " },
      { name: "ig/age", _gt: 18 },
      { name: "ig/age", _gte: 21 },
      { name: "ig/age", _lt: 90 },
      { name: "ig/age", _lte: 89 },
      { name: "ig/income", _null: false },
      { name: "ig/income", _nnull: true, optional: true },
    ]);
    expect((await read(apiKey, `targets/${targetId}`))["filter"]).toEqual({
      trait: [
        { name: "loyalty_tier", _eq: "gold" },
        { name: "loyalty_tier", _in: ["gold", "platinum"] },
        { name: "loyalty_tier", _nin: ["bronze"] },
        { name: "loyalty_tier", _matches: "^(gold|silver)$" },
        { name: "lifetime_value", _gt: 100 },
        { name: "lifetime_value", _gte: 100.25 },
        { name: "lifetime_value", _lt: 10000 },
        { name: "lifetime_value", _lte: 9999 },
        { name: "lifetime_value", _null: false },
        { name: "lifetime_value", _nnull: true },
      ],
      attribute: [
        { name: "ig/has_children", _eq: true },
        { name: "ig/state", _in: ["CA"] },
        { name: "ig/state", _nin: ["NV", "OR"] },
        { name: "ig/city", _matches: "town$" },
        { name: "ig/age", _gt: 30 },
        { name: "ig/age", _gte: 31 },
        { name: "ig/age", _lt: 65 },
        { name: "ig/age", _lte: 64 },
        { name: "ig/income", _null: true },
        { name: "ig/income", _nnull: false },
      ],
      cohort_membership: [{ cohort_id: cohortId, _eq: true }],
    });

    await stack.must(["preview", "--expect-no-changes"], { env });
    await stack.must(["destroy", "--yes"], { env });
    expect(await list(apiKey, "cohorts")).not.toContainEqual(expect.objectContaining({ id: cohortId }));
    expect(await list(apiKey, "targets")).toEqual([]);
  });
});
