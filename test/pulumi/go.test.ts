// examples/other-languages/adaptive-discounting-go through the real `pulumi` CLI and its Go language host, with the
// Go SDK generated from the plugin's schema: up in two accounts (the second through an explicit provider), no change
// after, an update shown with its values, `pulumi import` of a target made on the service (the Go code it prints,
// pasted into the program, declares it as imported), destroy leaving nothing; the connection's password never in
// plaintext.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { pulumiCli, skipReason, type PulumiStack, type Run, stackFilesHolding } from "./cli.ts";
import { emulatedService, legacyTarget } from "./emulated.ts";
import { destroyPipeline, expectPipelineDeployed } from "./pipeline.ts";
import { goStack } from "./go-program.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const EXAMPLE = join(ROOT, "examples", "other-languages", "adaptive-discounting-go");
const PASSWORD = "warehouse-password-5c9e";
const cli = pulumiCli();
const service = emulatedService();
const { createAccount, takeWrites } = service;

describe(`examples/other-languages/adaptive-discounting-go through pulumi${skipReason()}`, { timeout: 400_000 }, () => {
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
    keys.apiKey = await createAccount("go-default");
    keys.northKey = await createAccount("go-north");
    stack = await goStack(EXAMPLE, { AUDIENCE_BASE_URL: service.baseUrl() });
    await stack.config({ "audience:apiKey": keys.apiKey, northApiKey: keys.northKey, warehousePassword: PASSWORD }, true);
    await stack.config({ northBaseUrl: service.baseUrl() });

    const up = await must(["up", "--yes"]);
    expect(up.output).toMatch(/\+ 6 created/);
    const outputs = await stack.outputs();
    await expectPipelineDeployed(service, keys, outputs);
    expect(outputs["csvUrl"]).toEqual(expect.any(String));
    // In state, encrypted: shown only with --show-secrets.
    expect((await stack.must(["stack", "export"])).output).not.toContain(PASSWORD);
    expect(JSON.stringify(await stack.exported())).toContain(PASSWORD);

    await takeWrites();
    await must(["preview", "--expect-no-changes"]);
    await must(["refresh", "--yes", "--skip-preview", "--expect-no-changes"]);
    await must(["up", "--yes", "--skip-preview", "--expect-no-changes"]);
    expect(await takeWrites()).toEqual([]);
  });

  it("shows an update with its values in preview --diff and applies only it", async () => {
    const all = await resources();
    await stack.config({ warehouseHost: "warehouse-2.example.com", enabled: "true" });
    const preview = await must(["preview", "--diff"]);
    expect(preview.output).toMatch(/~ host\s*: "warehouse\.example\.com" => "warehouse-2\.example\.com"/);
    expect(preview.output).toMatch(/~ preview\s*: true => false/);
    await takeWrites();
    await must(["up", "--yes", "--skip-preview"]);
    const [connection, scope] = ["Connection", "Scope"].map((kind) => all.find((r) => r.type === `audience:index:${kind}`)!);
    expect((await takeWrites()).sort()).toEqual([`PATCH /connections/${connection!.id}`, `PATCH /scopes/${scope!.id}`]);
    await must(["preview", "--expect-no-changes"]);
  });

  it("imports a target made on the service, recording what create records; the Go code it prints declares it", async () => {
    const scopeId = (await stack.outputs())["scopeId"] as string;
    const id = await service.create(keys.apiKey, "targets", legacyTarget(scopeId));
    await takeWrites();
    const code = join(stack.dir, "imported.go.txt");
    await must(["import", "audience:index:Target", "legacy-csv", id, "--yes", "--protect=false", "--out", code]);
    expect(await takeWrites()).toEqual([]);
    const all = await resources();
    const legacy = all.find((r) => r.urn.endsWith("::legacy-csv"))!;
    const created = all.find((r) => r.urn.endsWith("::adaptive-discounting-csv"))!;
    expect(legacy.id).toBe(id);
    expect(legacy.inputs?.["name"]).toBe("Legacy CSV");
    expect({ ...legacy.inputs, name: "" }).toEqual({ ...created.inputs, name: "" });
    expect(Object.keys(legacy.outputs ?? {}).sort()).toEqual(Object.keys(created.outputs ?? {}).sort());

    // The printed program, pasted as a user would: its statements in the program's own function, called from main.
    const printed = readFileSync(code, "utf8");
    expect(printed).toContain('"github.com/pulumi-audience/pulumi-audience/sdk/go/audience"');
    expect(printed).toContain('audience.NewTarget(ctx, "legacy-csv", &audience.TargetArgs{');
    writeFileSync(join(stack.dir, "imported.go"), asFunction(printed, "declareImported"));
    const main = join(stack.dir, "main.go");
    const source = readFileSync(main, "utf8");
    const end = source.lastIndexOf("\t\treturn nil\n");
    writeFileSync(main, `${source.slice(0, end)}\t\tif err := declareImported(ctx); err != nil {\n\t\t\treturn err\n\t\t}\n${source.slice(end)}`);
    await must(["preview", "--expect-no-changes", "--diff"]);
    expect(await takeWrites()).toEqual([]);
  });

  it("destroys everything, the imported target too, in both accounts; the password never shows in plaintext", async () => {
    await destroyPipeline(stack, must, service, keys);
    for (const run of runs) expect(run.output).not.toContain(PASSWORD);
    expect(stackFilesHolding(stack, [PASSWORD, ...Object.values(keys)])).toEqual([]);
  });
});

/** A Go program `pulumi import` printed, its `main` made a function of the program's package taking `ctx`. */
function asFunction(program: string, name: string): string {
  const opening = "func main() {\n\tpulumi.Run(func(ctx *pulumi.Context) error {\n";
  const closing = "\t})\n}\n";
  expect(program).toContain(opening);
  expect(program.endsWith(closing)).toBe(true);
  return program.replace(opening, `func ${name}(ctx *pulumi.Context) error {\n`).slice(0, -closing.length) + "}\n";
}
