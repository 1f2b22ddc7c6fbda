// The code `pulumi import` prints for a TypeScript program, taken as docs/plugin.md tells a user of
// `pulumi-audience/native` to take it: the printed import of `@pulumi-audience/sdk` (the Node.js SDK the schema names)
// changed, nothing else; it then type-checks (tsc: Pulumi's Node.js host runs index.ts unchecked) and previews no
// change. The stack imports its own resources, so each copy has a twin its program created.
import { spawnSync } from "node:child_process";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scaffoldFiles } from "../../provider/cli/new.ts";
import { thisPackage } from "../../provider/cli/dependency.ts";
import { type ExportedResource, PLUGIN_IN_PACKAGE, programFolder, pulumiCli, pulumiStack, type PulumiStack, skipReason } from "./cli.ts";
import { emulatedService } from "./emulated.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const cli = pulumiCli();
const { baseUrl, createAccount, list, takeWrites } = emulatedService({ port: 0, builds: { default: "immediate" } });

// Cohorts without condition operators: the code of those fails (docs/known-problems.md, pulumi/pulumi#6120).
const PROGRAM = `import * as audience from "pulumi-audience/native";

const buyers = new audience.Cohort("buyers", { name: "Buyers", streamName: "transactions", minCount: 2 });
const recent = new audience.Cohort("recent", { name: "Recent buyers", streamName: "transactions", recency: { occurrence: "last", maxDays: 30 }, explore: true });
const pipeline = new audience.Scope("pipeline", { name: "Pipeline", population: { cohortIds: [buyers.id] }, payload: { cohortIds: [buyers.id, recent.id] }, preview: true });
new audience.Target("by-postcode", {
  name: "Pipeline by postcode",
  scopeId: pipeline.id,
  representation: { mode: "aggregated", aggregate: "postcode" },
  options: { type: "hosted_csv", quoteAll: true },
});
`;

/** Each resource of PROGRAM: its type, and the collection and name it has in the service. */
const DECLARED = {
  buyers: { type: "Cohort", collection: "cohorts", title: "Buyers" },
  recent: { type: "Cohort", collection: "cohorts", title: "Recent buyers" },
  pipeline: { type: "Scope", collection: "scopes", title: "Pipeline" },
  "by-postcode": { type: "Target", collection: "targets", title: "Pipeline by postcode" },
} as const;
const copyOf = (name: string) => `${name}-copy`;
/** A resource's recorded inputs and outputs, a target's `outputUrl` without its signature (made anew on each read). */
const recorded = ({ inputs, outputs = {} }: ExportedResource) =>
  ({ inputs, outputs: "outputUrl" in outputs ? { ...outputs, outputUrl: String(outputs["outputUrl"]).split("?")[0] } : outputs });
/** The import line `pulumi import` prints, and the one a program of this package has instead. */
const [SDK_IMPORT, NATIVE_IMPORT] = [`import * as audience from "@pulumi-audience/sdk";`, `import * as audience from "pulumi-audience/native";`];

/** `tsc` over the program folder, with the tsconfig `audience new` writes. */
function typecheck(dir: string) {
  const tsc = spawnSync(process.execPath, [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json"], { cwd: dir, encoding: "utf8" });
  return { code: tsc.status, output: tsc.stdout + tsc.stderr };
}

describe(`the code pulumi import prints, in a TypeScript program of pulumi-audience/native${skipReason()}`, { timeout: 600_000 }, () => {
  if (!cli.dir) return;
  let stack: PulumiStack;
  let code: string;

  it("pulumi import of the program's resources records what their creates did, and prints code for @pulumi-audience/sdk", async () => {
    const apiKey = await createAccount("import-code");
    const tsconfig = scaffoldFiles({ name: "import-code", manifest: thisPackage().manifest, dependency: thisPackage().manifest.version })["tsconfig.json"]!;
    stack = await pulumiStack({
      program: programFolder({
        "Pulumi.yaml": `name: import-code\nruntime: nodejs\nmain: index.ts\n${PLUGIN_IN_PACKAGE}`,
        "index.ts": PROGRAM,
        "tsconfig.json": tsconfig,
      }),
      env: { AUDIENCE_BASE_URL: baseUrl() },
    });
    await stack.config({ "audience:apiKey": apiKey }, true);
    await stack.must(["up", "--yes"]);

    const resources = await Promise.all(Object.entries(DECLARED).map(async ([name, { type, collection, title }]) => {
      const found = (await list(apiKey, collection)).filter((r) => r.name === title);
      expect(found).toHaveLength(1);
      return { type: `audience:index:${type}`, name: copyOf(name), id: found[0]!.id };
    }));
    const file = join(stack.dir, "import.json");
    writeFileSync(file, JSON.stringify({ resources }));
    await takeWrites();
    await stack.must(["import", "--file", file, "--yes", "--out", join(stack.dir, "imported.ts")]);
    expect(await takeWrites()).toEqual([]);

    const state = (await stack.exported()).deployment.resources ?? [];
    const resource = (name: string): ExportedResource => state.find((r) => r.urn.endsWith(`::${name}`) && r.custom)!;
    for (const name of Object.keys(DECLARED)) {
      const [copy, twin] = [resource(copyOf(name)), resource(name)];
      expect(copy.id).toBe(twin.id);
      expect(copy.protect).toBe(true);
      expect(recorded(copy)).toEqual(recorded(twin));
    }

    code = readFileSync(join(stack.dir, "imported.ts"), "utf8");
    // The schema's name for the Node.js SDK (provider/plugin/schema.ts): docs/plugin.md tells TypeScript users so.
    expect(code.split("\n").filter((line) => line.startsWith("import "))).toEqual([`import * as pulumi from "@pulumi/pulumi";`, SDK_IMPORT]);
    // Every resource protected, as pulumi import keeps it; a member the service defaults is written out.
    expect(code.match(/protect: true/g)).toHaveLength(Object.keys(DECLARED).length);
    expect(code).toContain("explore: false,");
    // References between the resources imported together are to their variables, not to ids.
    expect(code).toMatch(/cohortIds: \[buyers_copy\.id\]/);
    expect(code).toMatch(/scopeId: pipeline_copy\.id/);
  });

  it("with its import line changed to pulumi-audience/native, the code type-checks and previews no change", async () => {
    // The printed code as a module of the program, its import line changed and nothing else.
    const edited = code.replace(SDK_IMPORT, NATIVE_IMPORT);
    expect(edited.split("\n").filter((line, i) => line !== code.split("\n")[i])).toEqual([NATIVE_IMPORT]);
    // Enum members by the schema's names, which both faces export (provider/runtime/generated/enums.ts).
    expect([...code.matchAll(/\baudience\.(\w+)\.(\w+)\b/g)].map((m) => `${m[1]}.${m[2]}`).sort()).toEqual([
      "CohortRecencyOccurrence.Last",
      "TargetOptionsType.HostedCsv",
      "TargetRepresentationAggregate.Postcode",
      "TargetRepresentationMode.Aggregated",
    ]);
    writeFileSync(join(stack.dir, "imported.ts"), edited);
    appendFileSync(join(stack.dir, "index.ts"), `import "./imported.ts";\n`);
    const checked = typecheck(stack.dir);
    expect(checked.code, checked.output).toBe(0);
    await takeWrites();
    const preview = await stack.pulumi(["preview", "--expect-no-changes", "--diff"]);
    expect(preview.code, preview.output).toBe(0);
    expect(preview.output).toMatch(/9 unchanged/);
    expect(await takeWrites()).toEqual([]);
  });
});
