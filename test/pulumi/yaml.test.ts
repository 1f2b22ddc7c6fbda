// examples/other-languages/adaptive-discounting-yaml through the real `pulumi` CLI and the Pulumi YAML host
// (pulumi-yaml, pinned in tools/pulumi-yaml), the plugin found under Pulumi.yaml `plugins: providers:`: `up` in two
// accounts, no change on preview, refresh and a second `up`, an update shown with its values, `pulumi import` of a
// target made outside Pulumi, `destroy` leaving nothing. The warehouse password never appears in plaintext.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse, parseDocument } from "yaml";
import { PLUGIN_IN_PACKAGE, programFolder, pulumiCli, pulumiStack, type PulumiStack, skipReason, stackFilesHolding } from "./cli.ts";
import { emulatedService, legacyTarget } from "./emulated.ts";

const EXAMPLE = join(import.meta.dirname, "..", "..", "examples", "other-languages", "adaptive-discounting-yaml");
const PASSWORD = "warehouse-password-7c2e";
const cli = pulumiCli();
const service = emulatedService();
const { createAccount, takeWrites, list } = service;


/** The example's own files, its Pulumi.yaml given the plugin's path in the installed package. */
function exampleProgram(): string {
  const yaml = readFileSync(join(EXAMPLE, "Pulumi.yaml"), "utf8");
  return programFolder({ "Pulumi.yaml": `${yaml}${PLUGIN_IN_PACKAGE}` });
}

describe(`the Pulumi YAML example through pulumi${skipReason()}`, { timeout: 600_000 }, () => {
  if (!cli.dir) return;
  let stack: PulumiStack;
  const keys = { apiKey: "", northKey: "" };

  it("goes up in two accounts, and nothing changes after", async () => {
    keys.apiKey = await createAccount("yaml-default");
    keys.northKey = await createAccount("yaml-north");
    stack = await pulumiStack({ program: exampleProgram() });
    await stack.config({ "audience:baseUrl": service.baseUrl(), northBaseUrl: service.baseUrl() });
    await stack.config({ "audience:apiKey": keys.apiKey, northApiKey: keys.northKey, warehousePassword: PASSWORD }, true);
    const up = await stack.must(["up", "--yes"]);
    expect(up.output).toMatch(/\+ 6 created/);
    const outputs = await stack.outputs();
    const [scope] = await list(keys.apiKey, "scopes");
    expect(scope).toMatchObject({ id: outputs["scopeId"], name: "Adaptive discounting", preview: true });
    expect((await list(keys.apiKey, "targets")).map((t) => t.name)).toEqual(["Adaptive discounting (hosted CSV)"]);
    expect((await list(keys.apiKey, "connections")).map((c) => c.id)).toEqual([outputs["warehouseId"]]);
    expect((await list(keys.northKey, "cohorts")).map((c) => c.name)).toContain("North leads");
    expect(String(outputs["csvUrl"])).toMatch(/^https?:\/\//);

    await takeWrites();
    await stack.must(["preview", "--expect-no-changes"]);
    await stack.must(["refresh", "--yes", "--skip-preview", "--expect-no-changes"]);
    await stack.must(["up", "--yes", "--skip-preview", "--expect-no-changes"]);
    expect(await takeWrites()).toEqual([]);
  });

  it("keeps the warehouse password secret: not in any output, the backend or PULUMI_HOME", async () => {
    const plain = await stack.must(["stack", "export"]);
    expect(plain.output).not.toContain(PASSWORD);
    expect(stackFilesHolding(stack, [PASSWORD])).toEqual([]);
    const warehouse = (await stack.exported()).deployment.resources?.find((r) => r.type === "audience:index:Connection");
    expect(JSON.stringify(warehouse?.inputs)).toContain(PASSWORD);
  });

  it("shows an update with its values, then applies it as one patch", async () => {
    await stack.config({ preview: "false" });
    const preview = await stack.must(["preview", "--diff"]);
    expect(preview.output).toMatch(/~ preview\s*: true => false/);
    await takeWrites();
    await stack.must(["up", "--yes", "--skip-preview"]);
    expect(await takeWrites()).toEqual([`PATCH /scopes/${(await stack.outputs())["scopeId"]}`]);
    expect((await list(keys.apiKey, "scopes"))[0]?.preview).toBe(false);
    await stack.must(["preview", "--expect-no-changes"]);
  });

  it("imports a target made outside Pulumi; the code it prints, pasted into the program, changes nothing", async () => {
    const scopeId = String((await stack.outputs())["scopeId"]);
    const id = await service.create(keys.apiKey, "targets", legacyTarget(scopeId));
    const imported = await stack.must(["import", "audience:index:Target", "legacy-csv", id, "--yes"]);
    expect(imported.output).toMatch(/= 1 imported/);
    const target = (await stack.exported()).deployment.resources?.find((r) => r.urn.endsWith("::legacy-csv"));
    expect(target?.outputs).toMatchObject({ name: "Legacy CSV", scopeId, representation: { mode: "identified" }, options: { type: "hosted_csv" } });

    // Pulumi YAML prints the declaration (protected, as every import is); the user pastes it into Pulumi.yaml.
    const printed = parse(imported.output.slice(imported.output.search(/^resources:/m))) as { resources: Record<string, { type: string; properties: Record<string, unknown>; options?: Record<string, unknown> }> };
    expect(printed.resources["legacy-csv"]).toMatchObject({ type: "audience:Target", properties: { name: "Legacy CSV", scopeId }, options: { protect: true } });
    const program = parseDocument(readFileSync(join(stack.dir, "Pulumi.yaml"), "utf8"));
    const declared = printed.resources["legacy-csv"]!;
    program.setIn(["resources", "legacy-csv"], program.createNode(declared));
    writeFileSync(join(stack.dir, "Pulumi.yaml"), program.toString());
    await takeWrites();
    await stack.must(["preview", "--expect-no-changes"]);

    // What Pulumi's message says to do before a destroy: drop `protect` from the program and run `up`.
    program.setIn(["resources", "legacy-csv"], program.createNode({ ...declared, options: undefined }));
    writeFileSync(join(stack.dir, "Pulumi.yaml"), program.toString());
    await stack.must(["up", "--yes", "--skip-preview"]);
    expect(await takeWrites()).toEqual([]);
  });

  it("destroy leaves nothing in either account", async () => {
    await stack.must(["destroy", "--yes", "--skip-preview"]);
    for (const collection of ["scopes", "targets", "connections"]) expect(await list(keys.apiKey, collection), collection).toEqual([]);
    expect((await list(keys.northKey, "cohorts")).map((c) => c.name)).not.toContain("North leads");
  });
});
