// The package schema: what the plugin serves, what `audience schema` prints, valid against Pulumi's metaschema,
// and faithful to the contract (types, secrets, create-only members, config, lookups).
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { docParts, documentedMembers, families, memberDoc, membersOf, schemaName } from "pulumi-audience/sdk/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { providerFamilies } from "../../provider/runtime/families/index.ts";
import { packageSchema, REPOSITORY, type PackageSchema, type PropertySpec, type TypeSpec } from "../../provider/plugin/schema.ts";
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

/** The rules compiled, by their text: most broken copies of the schema leave the rules the schema's own. */
const compiledRules = new Map<string, ValidateFunction>();

/** What the package rules find wrong with a schema, one line per error. */
function ruleErrors(doc: PackageSchema): string[] {
  const rules = packageRules(doc as unknown as Record<string, unknown>);
  const key = JSON.stringify(rules);
  let validate = compiledRules.get(key);
  if (validate === undefined) {
    validate = new Ajv2020({ allErrors: true, strictTypes: false }).compile(rules);
    compiledRules.set(key, validate);
  }
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

/** Every map of properties in a schema, with where it is. */
function propertyMaps(doc: PackageSchema): [string, Record<string, PropertySpec>][] {
  return [
    ["config", doc.config.variables],
    ["provider", doc.provider.inputProperties],
    ...Object.entries(doc.resources).flatMap(([token, r]): [string, Record<string, PropertySpec>][] => [[`${token} inputs`, r.inputProperties], [`${token} outputs`, r.properties]]),
    ...Object.entries(doc.types).flatMap(([token, t]): [string, Record<string, PropertySpec>][] => ("properties" in t ? [[token, t.properties]] : [])),
    ...Object.entries(doc.functions).flatMap(([token, f]): [string, Record<string, PropertySpec>][] => [[`${token} inputs`, f.inputs.properties], [`${token} outputs`, f.outputs.properties]]),
  ];
}

/**
 * A property's Go field name: `Title` in pkg/codegen/go/gen.go (pulumi/pulumi), which `fieldName` applies with no
 * per-property override. It drops one leading `$` (again while there is one), upper-cases the first rune
 * (cgstrings.UppercaseFirst), removes each `-` and upper-cases what follows it (cgstrings.Unhyphenate), and puts
 * `_` before a first rune that cannot start a Go identifier (isLegalIdentifierStart: `_` or a letter).
 */
function goTitle(name: string): string {
  if (name === "") return "";
  if (name.startsWith("$")) return goTitle(name.slice(1));
  const upperFirst = (s: string) => (s === "" ? "" : [...s][0]!.toUpperCase() + [...s].slice(1).join(""));
  const unhyphenate = (s: string): string => {
    const i = s.indexOf("-");
    if (i < 0) return s;
    if (i + 1 >= s.length) return s.slice(0, i);
    return s.slice(0, i) + unhyphenate(upperFirst(s.slice(i + 1)));
  };
  const title = unhyphenate(upperFirst(name));
  return /^[_\p{L}]/u.test(title) ? title : `_${title}`;
}

const PYTHON_KEYWORDS = new Set("False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield".split(" "));

/**
 * A property's Python name: `PyName` in pkg/codegen/python/python.go (pulumi/pulumi), its four-state machine over
 * runes: a rune that cannot be in an identifier becomes `_`; a word starts at an upper-case rune after a lower-case
 * one or a digit, and an acronym ends before its last capital when a lower-case rune follows (digits and `s` stay
 * in it); words are lower-cased and joined by `_`; a Python keyword gets `_` after it (EnsureKeywordSafe).
 */
function pyName(name: string): string {
  const isUpper = (c: string) => c !== c.toLowerCase() && c === c.toUpperCase();
  const isDigit = (c: string) => /\p{Nd}/u.test(c);
  const legalStart = (c: string) => /[_\p{Lu}\p{Ll}\p{Lt}\p{Lm}\p{Lo}\p{Nl}]/u.test(c);
  const legalPart = (c: string) => legalStart(c) || /[\p{Mn}\p{Mc}\p{Nd}\p{Pc}]/u.test(c);
  const words: string[] = [];
  let word = "";
  let state: "first" | "upper" | "acronym" | "lower" = "first";
  for (let c of name) {
    if (!legalPart(c)) c = "_";
    if (state === "first") {
      if (!legalStart(c)) word += "_";
      word += isUpper(c) ? c.toLowerCase() : c;
      state = isUpper(c) ? "upper" : "lower";
    } else if (state === "upper") {
      state = isUpper(c) ? "acronym" : "lower";
      word += isUpper(c) ? c.toLowerCase() : c;
    } else if (state === "acronym") {
      if (isUpper(c)) word += c.toLowerCase();
      else if (isDigit(c) || c === "s") {
        state = "lower";
        word += c;
      } else {
        const chars = [...word];
        words.push(chars.slice(0, -1).join(""));
        word = chars.at(-1)! + c;
        state = "lower";
      }
    } else if (isUpper(c)) {
      words.push(word);
      word = c.toLowerCase();
      state = "upper";
    } else {
      word += c;
    }
  }
  if (word !== "") words.push(word);
  const joined = words.join("_");
  return PYTHON_KEYWORDS.has(joined) ? `${joined}_` : joined;
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
    for (const providerFamily of Object.values(providerFamilies)) expect(served.resources).toHaveProperty([resourceToken(providerFamily.family.className)]);
    const target = served.resources["audience:index:Target"]!;
    expect(target.requiredInputs).toEqual(["name", "options", "representation", "scopeId"]);
    expect(Object.keys(target.inputProperties)).toEqual(expect.arrayContaining(["scopeId", "humanReadable", "waitFor", "deletionMode", "account", "adoptId"]));
    expect(target.properties).toHaveProperty("outputUrl");
    expect(target.properties).not.toHaveProperty("id");
    expect(served.types["audience:index:WaitFor"]).toEqual({ type: "string", enum: [{ value: "none", name: "None" }, { value: "ready", name: "Ready" }] });
    expect(served.types["audience:index:TargetOptionsType"]).toMatchObject({ enum: expect.arrayContaining([{ value: "hosted_csv", name: "HostedCsv" }]) });
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

  it("names every operator member so Go exports it (`$gte` -> Gte), Python keeps its name (`_gte`) and .NET has one (`Gte`)", () => {
    // The contract's operator fields (wire names), by the name the schema gives them.
    const wireOf = new Map<string, string>();
    for (const family of Object.values(families)) {
      for (const member of [...membersOf(family.create), ...membersOf(family.response)]) {
        if (member.key.startsWith("_")) wireOf.set(schemaName(member.key), member.key);
      }
    }
    expect(wireOf.size).toBeGreaterThanOrEqual(12);
    expect(wireOf.get("$gte")).toBe("_gte");
    expect(wireOf.get("$onOrAfter")).toBe("_on_or_after");

    const operators = new Map<string, PropertySpec>();
    const unexported: string[] = [];
    const clashes: string[] = [];
    for (const [where, properties] of propertyMaps(served)) {
      const goNames = new Map<string, string>();
      for (const [name, spec] of Object.entries(properties)) {
        const go = goTitle(name);
        if (!/^\p{Lu}[\p{L}\p{Nd}_]*$/u.test(go)) unexported.push(`${where}.${name} -> ${go}`);
        if (goNames.has(go)) clashes.push(`${where}: ${goNames.get(go)} and ${name} -> ${go}`);
        goNames.set(go, name);
        if (name.startsWith("$")) operators.set(name, spec);
      }
    }
    expect(unexported).toEqual([]);
    expect(clashes).toEqual([]);
    expect([...operators.keys()].sort()).toEqual([...wireOf.keys()].sort());
    for (const [name, spec] of operators) {
      // Python's name is the wire's, as it was when the schema named the member `_gte`.
      expect(pyName(name), name).toBe(wireOf.get(name));
      expect(pyName(wireOf.get(name)!), name).toBe(wireOf.get(name));
      expect(spec.language?.csharp.name, name).toBe(goTitle(name));
    }
    expect(operators.get("$onOrAfter")?.language?.csharp.name).toBe("OnOrAfter");
    // Members that are identifiers already carry no language names.
    expect(served.resources["audience:index:Scope"]!.inputProperties.name!.language).toBeUndefined();
  });

  it("is what the Pulumi YAML example writes: every member it names is one the schema defines", () => {
    const program = parse(readFileSync(`${REPO_ROOT}/examples/other-languages/adaptive-discounting-yaml/Pulumi.yaml`, "utf8")) as {
      resources: Record<string, { type: string; properties: Record<string, unknown> }>;
      variables: Record<string, { "fn::invoke": { function: string; arguments: Record<string, unknown> } }>;
    };
    const unknown: string[] = [];
    const walk = (where: string, value: unknown, spec: TypeSpec | undefined) => {
      const ref = spec?.$ref?.startsWith("#/types/") ? served.types[spec.$ref.slice("#/types/".length)] : undefined;
      if (ref && "properties" in ref) return members(where, value, ref.properties);
      if (Array.isArray(value)) return value.forEach((v, i) => walk(`${where}[${i}]`, v, spec?.items));
      if (typeof value === "object" && value !== null && spec?.additionalProperties) {
        for (const [k, v] of Object.entries(value)) walk(`${where}.${k}`, v, spec.additionalProperties);
      }
    };
    const members = (where: string, value: unknown, properties: Record<string, PropertySpec>) => {
      if (typeof value !== "object" || value === null) return;
      for (const [name, v] of Object.entries(value)) {
        if (!(name in properties)) unknown.push(`${where}.${name}`);
        else walk(`${where}.${name}`, v, properties[name]);
      }
    };
    let checked = 0;
    for (const [name, resource] of Object.entries(program.resources)) {
      const spec = resource.type === "pulumi:providers:audience" ? served.provider : served.resources[resource.type];
      expect(spec, resource.type).toBeDefined();
      members(name, resource.properties, spec!.inputProperties);
      checked++;
    }
    for (const [name, variable] of Object.entries(program.variables)) {
      const invoke = variable["fn::invoke"];
      members(name, invoke.arguments, served.functions[invoke.function]!.inputs.properties);
    }
    expect(checked).toBe(5);
    expect(unknown).toEqual([]);
  });

  it("reads Go's and Python's naming rules as pulumi/pulumi's code generators apply them", () => {
    expect(["$ref", "_gte", "$onOrAfter", "scope-id", "name", "1st"].map(goTitle)).toEqual(["Ref", "_gte", "OnOrAfter", "ScopeId", "Name", "_1st"]);
    expect(["$ref", "$gte", "$onOrAfter", "_on_or_after", "scopeId", "SHA256Hash", "class"].map(pyName)).toEqual(["_ref", "_gte", "_on_or_after", "_on_or_after", "scope_id", "sha256_hash", "class_"]);
  });
});
