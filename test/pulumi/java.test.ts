// examples/other-languages/adaptive-discounting-java through the real `pulumi` CLI and the Java language host
// (pulumi-java, pinned in tools/pulumi-java), with the Java SDK generated from the plugin's schema and installed into
// the local Maven repository as its README says: up in two accounts (the second through an explicit provider), no
// change after, an update shown with its values, `pulumi import` of a target made on the service (its printed code
// pasted in), destroy leaving nothing; the connection's password never in plaintext.
import { spawnSync } from "node:child_process";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PLUGIN_IN_PACKAGE, pulumiCli, pulumiStack, type PulumiStack, type Run, skipReason, stackFilesHolding } from "./cli.ts";
import { emulatedService, legacyTarget } from "./emulated.ts";
import { destroyPipeline, expectPipelineDeployed } from "./pipeline.ts";
import { generatedSdk } from "./sdks.ts";

const EXAMPLE = join(import.meta.dirname, "..", "..", "examples", "other-languages", "adaptive-discounting-java");
const PASSWORD = "warehouse-password-3d8a";
const cli = pulumiCli();
const service = emulatedService();
const { createAccount, takeWrites, list } = service;

/** `mvn install` of this file's generated SDK into ~/.m2 (online the first time), where the program's pom finds it. */
function installJavaSdk(): void {
  const install = spawnSync("mvn", ["-B", "-q", "--no-transfer-progress", "install"], { cwd: generatedSdk("java"), encoding: "utf8" });
  expect(install.status, install.stdout + install.stderr).toBe(0);
}

describe(`examples/other-languages/adaptive-discounting-java through pulumi${skipReason()}`, { timeout: 600_000 }, () => {
  if (!cli.dir) return;
  let stack: PulumiStack;
  const keys = { apiKey: "", northKey: "" };
  /** Every command's output, to look for the password in. */
  const runs: Run[] = [];
  const must = async (args: string[]) => {
    const run = await stack.must(args);
    runs.push(run);
    return run;
  };
  const resources = async () => (await stack.exported()).deployment.resources ?? [];

  it("goes up in two accounts; preview, refresh and a second up find no change and write nothing", async () => {
    installJavaSdk();
    keys.apiKey = await createAccount("java-default");
    keys.northKey = await createAccount("java-north");
    stack = await pulumiStack({ program: EXAMPLE, env: { AUDIENCE_BASE_URL: service.baseUrl() } });
    // The plugin from this package's installed node_modules, as a user's `pulumi plugin install` would find it.
    appendFileSync(join(stack.dir, "Pulumi.yaml"), PLUGIN_IN_PACKAGE);
    await stack.config({ "audience:apiKey": keys.apiKey, northApiKey: keys.northKey, warehousePassword: PASSWORD }, true);
    await stack.config({ northBaseUrl: service.baseUrl() });

    // Each program run starts Maven twice (the host asks the program for its plugins, then runs it): the ups skip
    // their preview, which preview and preview --diff cover.
    const up = await must(["up", "--yes", "--skip-preview"]);
    expect(up.output).toMatch(/\+ 6 created/);
    const outputs = await stack.outputs();
    await expectPipelineDeployed(service, keys, outputs);
    expect(String(outputs["csvUrl"])).toMatch(/^https?:\/\//);
    // `$gte` reached the service as its `_gte`.
    const northLeads = (await list(keys.northKey, "cohorts")).find((c) => c.name === "North leads")!;
    const read = (await (await service.get(keys.northKey, `cohorts/${northLeads.id}`)).json()) as { stream_conditions?: unknown };
    expect(read.stream_conditions).toEqual([expect.objectContaining({ property: "amount", _gte: 100 })]);
    // In state, encrypted: shown only with --show-secrets.
    expect((await stack.must(["stack", "export"])).output).not.toContain(PASSWORD);
    expect(JSON.stringify(await stack.exported())).toContain(PASSWORD);

    await takeWrites();
    await must(["preview", "--expect-no-changes"]);
    await must(["refresh", "--yes", "--skip-preview", "--expect-no-changes"]);
    await must(["up", "--yes", "--skip-preview", "--expect-no-changes"]);
    expect(await takeWrites()).toEqual([]);
  });

  it("shows an update with its values in preview --diff and applies it as one patch", async () => {
    await stack.config({ enabled: "true" });
    const preview = await must(["preview", "--diff"]);
    expect(preview.output).toMatch(/~ preview\s*: true => false/);
    await takeWrites();
    await must(["up", "--yes", "--skip-preview"]);
    expect(await takeWrites()).toEqual([`PATCH /scopes/${(await stack.outputs())["scopeId"]}`]);
    await must(["preview", "--expect-no-changes"]);
  });

  it("imports a target made on the service, recording what create records; the printed Java, repaired, changes nothing", async () => {
    const scopeId = (await stack.outputs())["scopeId"] as string;
    const id = await service.create(keys.apiKey, "targets", legacyTarget(scopeId));
    await takeWrites();
    const imported = await must(["import", "audience:index:Target", "legacy-csv", id, "--yes", "--protect=false"]);
    expect(imported.output).toMatch(/= 1 imported/);
    expect(await takeWrites()).toEqual([]);
    const all = await resources();
    const legacy = all.find((r) => r.urn.endsWith("::legacy-csv"))!;
    const created = all.find((r) => r.urn.endsWith("::adaptive-discounting-csv"))!;
    expect(legacy.id).toBe(id);
    expect(legacy.inputs?.["name"]).toBe("Legacy CSV");
    expect({ ...legacy.inputs, name: "" }).toEqual({ ...created.inputs, name: "" });
    expect(Object.keys(legacy.outputs ?? {}).sort()).toEqual(Object.keys(created.outputs ?? {}).sort());

    // The host prints a Java program declaring it, which does not compile as printed (README.md): it imports the
    // input types from com.pulumi.audience, not the SDK's com.pulumiaudience.audience, and gives enum members as strings.
    const printed = imported.output.slice(imported.output.indexOf("package generated_program;"));
    expect(printed).toContain("import com.pulumi.audience.inputs.TargetOptionsArgs;");
    expect(printed).toContain('.type("hosted_csv")');
    const declaration = /var legacy_csv = new Target\("legacy-csv", TargetArgs\.builder\(\)[\s\S]*?\.build\(\)\);/.exec(printed)?.[0];
    expect(declaration).toContain(`.scopeId("${scopeId}")`);
    // What the user does: the statement into the program (which imports the right packages), enum members for strings.
    const repaired = declaration!.replace('.type("hosted_csv")', ".type(TargetOptionsType.HostedCsv)").replace('.mode("identified")', ".mode(TargetRepresentationMode.Identified)");
    const app = join(stack.dir, "src", "main", "java", "adaptivediscounting", "App.java");
    const program = readFileSync(app, "utf8");
    expect(program).toContain('        ctx.export("scopeId"');
    writeFileSync(app, program.replace('        ctx.export("scopeId"', `        ${repaired}\n\n        ctx.export("scopeId"`));
    await takeWrites();
    await must(["preview", "--expect-no-changes"]);
    expect(await takeWrites()).toEqual([]);
  });

  it("destroys everything, the imported target too, in both accounts; the password never shows in plaintext", async () => {
    await destroyPipeline(stack, must, service, keys);
    for (const run of runs) expect(run.output).not.toContain(PASSWORD);
    expect(stackFilesHolding(stack, [PASSWORD, ...Object.values(keys)])).toEqual([]);
  });
});
