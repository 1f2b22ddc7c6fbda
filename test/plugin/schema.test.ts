// The package schema: what the plugin serves, what `audience schema` prints, valid against Pulumi's metaschema,
// and faithful to the contract (types, secrets, create-only members, config, lookups).
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import { docParts, documentedMembers, families, memberDoc } from "pulumi-audience/sdk/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { providerFamilies } from "../../provider/runtime/families/index.ts";
import { packageSchema, REPOSITORY, type PackageSchema, type PropertySpec } from "../../provider/plugin/schema.ts";
import { resourceToken } from "../../provider/plugin/tokens.ts";
import { Plugin, REPO_ROOT } from "./harness.ts";
import { packageRules } from "./package-rules.ts";

/**
 * Pulumi's package metaschema (`pkg/codegen/schema/pulumi.json` in pulumi/pulumi), placed here by hand: it is
 * not part of this repository. Without it the metaschema test is skipped, saying so; the rules of it our schema
 * relies on, in our own words (package-rules.ts), are checked always.
 */
const METASCHEMA = fileURLToPath(new URL("./fixtures/pulumi-package-metaschema.json", import.meta.url));

let plugin: Plugin;
let served: PackageSchema;

/** What the package rules find wrong with a schema, one line per error. */
function ruleErrors(doc: PackageSchema): string[] {
  const ajv = new Ajv2020({ allErrors: true, strictTypes: false });
  const validate = ajv.compile(packageRules(doc as unknown as Record<string, unknown>));
  validate(doc);
  return (validate.errors ?? []).map((e) => `${e.instancePath} ${e.keyword}: ${e.message ?? ""} ${JSON.stringify(e.params)}`);
}

/** A copy of the schema to break, typed loosely. */
type Spec = Record<string, unknown>;
interface Broken {
  config: { variables: Record<string, Spec>; defaults?: string[] };
  types: Record<string, Spec & { enum?: unknown[]; required?: string[] }>;
  resources: Record<string, { inputProperties: Record<string, Spec>; requiredInputs: string[] }>;
  functions: Record<string, { outputs?: unknown }>;
}

/** The first object type of a schema. */
function objectType(doc: Broken): Spec & { required?: string[] } {
  return Object.values(doc.types).find((t) => t.type === "object")!;
}

beforeAll(async () => {
  plugin = await Plugin.start();
  served = (await plugin.schema()) as unknown as PackageSchema;
}, 30_000);

afterAll(async () => {
  await plugin?.close();
});

describe("the package schema", () => {
  it("is what the plugin serves and what `audience schema` prints", async () => {
    expect(served).toEqual(packageSchema());
    const printed = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, ["--conditions=source", "provider/cli/main.ts", "schema"], { cwd: REPO_ROOT, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
        error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout));
    });
    expect(JSON.parse(printed)).toEqual(served);
  });

  it.skipIf(!existsSync(METASCHEMA))("is valid against Pulumi's package metaschema (skipped without test/plugin/fixtures/pulumi-package-metaschema.json)", () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    const validate = ajv.compile(JSON.parse(readFileSync(METASCHEMA, "utf8")) as object);
    validate(served);
    expect(validate.errors ?? []).toEqual([]);
  });

  it("follows the rules of Pulumi package schemas it relies on (test/plugin/package-rules.ts)", () => {
    expect(ruleErrors(served)).toEqual([]);
  });

  it.each<[string, (doc: Broken) => void, RegExp]>([
    ["a type token outside pkg:module:Name", (doc) => { doc.types["audience:Scope"] = doc.types["audience:index:WaitFor"]!; }, /propertyNames/],
    ["a resource of another package", (doc) => { doc.resources["other:index:Scope"] = doc.resources["audience:index:Scope"]!; }, /propertyNames/],
    ["a $ref to a type it does not define", (doc) => { doc.resources["audience:index:Target"]!.inputProperties.options = { $ref: "#/types/audience:index:Nowhere" }; }, /\/\$ref.*enum|must be equal to one of the allowed values/],
    ["an array without items", (doc) => { doc.resources["audience:index:Scope"]!.inputProperties.name = { type: "array" }; }, /oneOf/],
    ["a spec of two kinds at once", (doc) => { doc.resources["audience:index:Scope"]!.inputProperties.name = { type: "string", $ref: "pulumi.json#/Any" }; }, /oneOf/],
    ["a map without additionalProperties", (doc) => { doc.resources["audience:index:Scope"]!.inputProperties.name = { type: "object" }; }, /oneOf/],
    ["a required input it does not declare", (doc) => { doc.resources["audience:index:Scope"]!.requiredInputs.push("nowhere"); }, /requiredInputs/],
    ["a required member of a type it does not declare", (doc) => { objectType(doc).required = ["nowhere"]; }, /required/],
    ["an enum value of another type", (doc) => { doc.types["audience:index:WaitFor"]!.enum = [{ value: 1 }]; }, /enum/],
    ["a config default that is no variable", (doc) => { doc.config.defaults = ["apiKey", "region"]; }, /defaults/],
    ["a default of another type than its property", (doc) => { doc.config.variables.baseUrl = { ...doc.config.variables.baseUrl, default: 8080 }; }, /default/],
    ["a function without outputs", (doc) => { delete doc.functions["audience:index:getCohort"]!.outputs; }, /outputs/],
    ["an unknown member of a property", (doc) => { doc.resources["audience:index:Scope"]!.inputProperties.name = { type: "string", requried: true }; }, /unevaluated/],
  ])("is refused by those rules with %s", (_case, breakIt, where) => {
    const broken = structuredClone(served) as unknown as Broken;
    breakIt(broken);
    const errors = ruleErrors(broken as unknown as PackageSchema);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.join("\n")).toMatch(where);
  });

  it("refers only to types it defines, and every object's required members exist", () => {
    const refs = [...JSON.stringify(served).matchAll(/"\$ref":"#\/types\/([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.filter((token) => !(token in served.types))).toEqual([]);
    for (const [token, type] of Object.entries(served.types)) {
      if (type.type !== "object" || !("properties" in type)) continue;
      expect((type.required ?? []).filter((name) => !(name in type.properties)), token).toEqual([]);
    }
    for (const [token, resource] of Object.entries(served.resources)) {
      expect(resource.requiredInputs.filter((name) => !(name in resource.inputProperties)), token).toEqual([]);
      expect(token).toMatch(/^audience:index:[A-Z][A-Za-z]+$/);
    }
  });

  it("has a resource per family with the contract's members in camelCase and the controls", () => {
    for (const kind of Object.values(providerFamilies)) expect(served.resources).toHaveProperty([resourceToken(kind)]);
    const target = served.resources["audience:index:Target"]!;
    expect(target.requiredInputs).toEqual(["name", "options", "representation", "scopeId"]);
    expect(Object.keys(target.inputProperties)).toEqual(expect.arrayContaining(["scopeId", "humanReadable", "waitFor", "deletionMode", "account", "adoptId"]));
    expect(target.properties).toHaveProperty("outputUrl");
    expect(target.properties).not.toHaveProperty("id");
    expect(served.types["audience:index:WaitFor"]).toEqual({ type: "string", enum: [{ value: "none" }, { value: "ready" }] });
  });

  it("marks create-only members replaceOnChanges and credential members secret", () => {
    expect(families.targets.createOnly).toContain("options.type");
    const targetOptions = served.resources["audience:index:Target"]!.inputProperties.options!.$ref!.replace("#/types/", "");
    expect(served.types[targetOptions]).toMatchObject({ properties: { type: { replaceOnChanges: true } } });
    const migration = served.resources["audience:index:Migration"]!.inputProperties;
    expect(migration.v1AccountId).toMatchObject({ replaceOnChanges: true });
    const connectionOptions = served.resources["audience:index:Connection"]!.inputProperties.options!;
    // Secret per member, as Pulumi's own providers keep them: the options read as values, their credentials do not.
    expect(connectionOptions.secret).toBeUndefined();
    expect(served.types[connectionOptions.$ref!.replace("#/types/", "")]).toMatchObject({ properties: { password: { secret: true }, token: { secret: true } } });
    expect(served.resources["audience:index:Account"]!.properties.apiKey).toMatchObject({ type: "string", secret: true });
    expect(served.resources["audience:index:Dataset"]!.inputProperties.options).toBeDefined();
  });

  it("describes deprecated members", () => {
    const personaSet = served.resources["audience:index:PersonaSet"]!.inputProperties;
    expect(personaSet.modelingFields?.deprecationMessage).toBeTruthy();
    expect(personaSet.name?.deprecationMessage).toBeUndefined();
    const cohort = served.resources["audience:index:Cohort"]!.inputProperties;
    expect(cohort.placeConditions?.deprecationMessage).toBe(docParts(memberDoc("cohorts", "place_conditions")!).deprecated);
  });

  it("describes every property with the contract's field docs", () => {
    const undescribed: string[] = [];
    const check = (where: string, properties: Record<string, PropertySpec>) => {
      for (const [name, spec] of Object.entries(properties)) if (!spec.description) undescribed.push(`${where}.${name}`);
    };
    check("config", served.config.variables);
    check("provider", served.provider.inputProperties);
    for (const [token, resource] of Object.entries(served.resources)) {
      check(`${token} inputs`, resource.inputProperties);
      check(`${token} outputs`, resource.properties);
    }
    for (const [token, type] of Object.entries(served.types)) if ("properties" in type) check(token, type.properties);
    for (const [token, fn] of Object.entries(served.functions)) {
      check(`${token} inputs`, fn.inputs.properties);
      check(`${token} outputs`, fn.outputs.properties);
    }
    expect(undescribed).toEqual([]);
    const scopeDoc = documentedMembers("scopes", families.scopes, families.scopes.create).find((m) => m.path === "name")!.description;
    expect(served.resources["audience:index:Scope"]!.inputProperties.name!.description).toBe(scopeDoc);
    expect(served.resources["audience:index:Target"]!.inputProperties.waitFor!.description).toMatch(/wait until the resource has built/);
  });

  it("configures the provider with a secret apiKey and a baseUrl, both with their environment variables", () => {
    expect(served.config.variables.apiKey).toMatchObject({ type: "string", secret: true, defaultInfo: { environment: ["AUDIENCE_API_KEY"] } });
    expect(served.config.variables.baseUrl).toMatchObject({ type: "string", defaultInfo: { environment: ["AUDIENCE_BASE_URL"] } });
    expect(served.provider.inputProperties.apiKey?.secret).toBe(true);
  });

  it("offers the lookups as functions returning the family's outputs", () => {
    const getCohort = served.functions["audience:index:getCohort"]!;
    expect(Object.keys(getCohort.inputs.properties)).toEqual(["name", "id", "account"]);
    expect(getCohort.outputs.properties).toHaveProperty("id");
    expect(getCohort.outputs.properties).toHaveProperty("streamName");
    expect(served.functions).not.toHaveProperty("audience:index:getInsights");
  });
});

describe("the schema's language sections", () => {
  it("names a package per language that does not collide with this npm package, and a Go module under our repository", () => {
    expect(served.language.nodejs).toMatchObject({ packageName: "@pulumi-audience/sdk", dependencies: { "@pulumi/pulumi": expect.any(String) } });
    expect(served.language.python).toMatchObject({ packageName: "pulumi_audience" });
    expect(served.language.go).toMatchObject({ importBasePath: `${REPOSITORY}/sdk/go/audience`, generateResourceContainerTypes: true });
    expect(served.language.csharp).toMatchObject({ rootNamespace: "PulumiAudience", namespaces: { audience: "Audience" } });
    expect(served.repository).toBe(`https://${REPOSITORY}`);
  });

  it("downloads the plugin from the package's `pulumi.server`", () => {
    const manifest = JSON.parse(readFileSync(`${REPO_ROOT}/package.json`, "utf8")) as { pulumi?: { server?: string } };
    expect(manifest.pulumi?.server).toMatch(/^(github|https):\/\//);
    expect(served.pluginDownloadURL).toBe(manifest.pulumi!.server);
  });

  it("gives every operator member (`_gte`, `_on_or_after`) a .NET name, keeping its own name", () => {
    const operators = new Map<string, string>();
    for (const type of Object.values(served.types)) {
      if (!("properties" in type)) continue;
      for (const [name, spec] of Object.entries(type.properties)) if (name.startsWith("_")) operators.set(name, spec.language?.csharp.name ?? "");
    }
    expect(operators.size).toBeGreaterThanOrEqual(12);
    expect(operators.get("_gte")).toBe("Gte");
    expect(operators.get("_on_or_after")).toBe("OnOrAfter");
    expect([...operators.values()].filter((name) => !/^[A-Z][A-Za-z]+$/.test(name))).toEqual([]);
    // Members that are identifiers already carry no language names.
    expect(served.resources["audience:index:Scope"]!.inputProperties.name!.language).toBeUndefined();
  });
});
