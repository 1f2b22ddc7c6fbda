// The `audience` package schema (Pulumi's package metaschema), generated from the contract: each family's create
// shape gives its inputs, its response shape its outputs, its secret and create-only paths the `secret` and
// `replaceOnChanges` marks; the lifecycle's controls are inputs of every resource; lookups are functions.
import { camelKey, commonDocs, documentedMembers, membersOf, schemaName, type Collection, type DocumentedMember, type FamilyDef } from "pulumi-audience/sdk/contract";
import { z } from "zod";
import { providerFamilies, type ProviderFamily } from "../runtime/families/index.ts";
import { controlsSchema } from "../runtime/lifecycle/controls.ts";
import { isObject } from "../runtime/lifecycle/shape.ts";
import { DEFAULT_MAX_RETRIES, MOST_RETRIES } from "../runtime/lifecycle/settings.ts";
import { PLUGIN_DOWNLOAD_URL, VERSION } from "./manifest.ts";
import { functionToken, lookupFamilies, PACKAGE, resourceToken } from "./tokens.ts";

/** The part of JSON Schema that zod emits and this generator reads. */
interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  additionalProperties?: JsonSchema | boolean;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  description?: string;
  deprecated?: boolean;
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
  not?: JsonSchema;
}

export interface TypeSpec {
  type?: string;
  items?: TypeSpec;
  additionalProperties?: TypeSpec;
  $ref?: string;
  oneOf?: TypeSpec[];
}

export interface PropertySpec extends TypeSpec {
  description?: string;
  secret?: boolean;
  replaceOnChanges?: boolean;
  deprecationMessage?: string;
  defaultInfo?: { environment: string[] };
  /** Per-language names of a member whose own name is no identifier there (`$gte`). */
  language?: { csharp: { name: string } };
}

export interface ObjectTypeSpec {
  type: "object";
  description?: string;
  properties: Record<string, PropertySpec>;
  required?: string[];
}

interface EnumTypeSpec {
  type: "string" | "number" | "integer" | "boolean";
  description?: string;
  enum: { value: string | number | boolean; name?: string }[];
}

export interface ResourceSpec {
  description: string;
  inputProperties: Record<string, PropertySpec>;
  requiredInputs: string[];
  properties: Record<string, PropertySpec>;
  required: string[];
  aliases?: { type: string }[];
  type?: "object";
}

export interface PackageSchema {
  name: string;
  version: string;
  displayName: string;
  description: string;
  keywords: string[];
  license: string;
  repository: string;
  publisher: string;
  pluginDownloadURL?: string;
  meta: { moduleFormat: string; supportPack: boolean };
  config: { variables: Record<string, PropertySpec> };
  provider: ResourceSpec;
  resources: Record<string, ResourceSpec>;
  functions: Record<string, { description: string; inputs: ObjectTypeSpec; outputs: ObjectTypeSpec }>;
  types: Record<string, ObjectTypeSpec | EnumTypeSpec>;
  language: Record<string, Record<string, unknown>>;
}

const ANY: TypeSpec = { $ref: "pulumi.json#/Any" };
const PRIMITIVES = new Set(["string", "number", "integer", "boolean"]);
/** Enum values that every language's generated SDK can name. */
const NAMEABLE = /^[A-Za-z][A-Za-z0-9_ -]*$/;

function pascal(text: string): string {
  return camelKey(text).replace(/^[a-z]/, (c) => c.toUpperCase()).replace(/[^A-Za-z0-9]/g, "");
}

/**
 * Enum values with the name each SDK gives them (`hosted_csv` -> Go `TargetOptionsTypeHostedCsv`, Java and .NET
 * `HostedCsv`, Python `HOSTED_CSV`); without one, generators keep the value's underscores (`TargetOptionsType_Hosted_csv`).
 * Values whose names would collide keep none.
 */
function enumValues(values: readonly string[]): { value: string; name?: string }[] {
  const names = values.map(pascal);
  if (new Set(names).size !== names.length || names.some((n) => !/^[A-Z]/.test(n))) return values.map((value) => ({ value }));
  return values.map((value, i) => ({ value, name: names[i]! }));
}

/** .NET's name of an operator member (`_on_or_after` -> `OnOrAfter`): its words, with no sign before them. */
function operatorName(key: string): string {
  return pascal(key.replace(/^_+/, ""));
}

/** Wire paths compared without array and map markers: `options.password`, `stream_conditions.property`. */
function plainPath(path: string): string {
  return path.replace(/\[\d*\]/g, "").replace(/\.\*(?=\.|$)/g, "");
}

function without<T>(list: T[] | undefined, drop: (item: T) => boolean): T[] {
  return (list ?? []).filter((item) => !drop(item));
}

const isNull = (s: JsonSchema) => s.type === "null";
/** `z.never().optional()`: a member this variant refuses. */
const isRefused = (s: JsonSchema) => isObject(s.not) && Object.keys(s.not).length === 0;

interface Marks {
  /** Wire paths holding credentials. */
  secrets: ReadonlySet<string>;
  /** Wire paths that cannot change after create. */
  createOnly: ReadonlySet<string>;
  /** Each member's doc, by its path in the contract's docs tables (`[]` for elements, `.*` for map values). */
  docs: ReadonlyMap<string, Pick<DocumentedMember, "description" | "deprecated">>;
}

/** Turns zod's JSON Schema into Pulumi types, naming each object and enum type after the path it was found at. */
class TypeBuilder {
  readonly types: PackageSchema["types"];
  #defs: Record<string, JsonSchema> = {};
  #document = "";
  #suffix = "";
  readonly #refs = new Map<string, string>();

  constructor(types: PackageSchema["types"]) {
    this.types = types;
  }

  /** Reads members of `json` (one zod schema's JSON Schema); a type that differs from a same-named one gets `suffix`. */
  document(json: JsonSchema, name: string, suffix: string): JsonSchema {
    this.#defs = json.$defs ?? {};
    this.#document = name;
    this.#suffix = suffix;
    return json;
  }

  #tokens(hint: string): string[] {
    const base = `${PACKAGE}:index:${hint}`;
    return [base, `${base}${this.#suffix}`, ...Array.from({ length: 20 }, (_, n) => `${base}${this.#suffix}${n + 2}`)];
  }

  /** Registers a type under the first free token for `hint`; an identical type reuses its token. */
  #register(hint: string, spec: ObjectTypeSpec | EnumTypeSpec): string {
    for (const token of this.#tokens(hint)) {
      const existing = this.types[token];
      if (!existing) {
        this.types[token] = spec;
        return token;
      }
      if (JSON.stringify(existing) === JSON.stringify(spec)) return token;
    }
    throw new Error(`schema: too many different types named ${hint}`);
  }

  #resolve(schema: JsonSchema): JsonSchema {
    if (schema.$ref === undefined) return schema;
    const name = schema.$ref.replace(/^#\/\$defs\//, "");
    return this.#defs[name] ?? {};
  }

  /** The options of a union, nulls dropped; a lone schema is its own single option. */
  #options(schema: JsonSchema): JsonSchema[] {
    const s = this.#resolve(schema);
    const union = s.anyOf ?? s.oneOf;
    if (union) return without(union, isNull).flatMap((o) => this.#options(o));
    if (Array.isArray(s.type)) return without(s.type.map((type) => ({ ...s, type })), isNull);
    return [s];
  }

  #isObjectLike(schema: JsonSchema): boolean {
    const options = this.#options(schema);
    return options.length > 0 && options.every((o) => o.properties !== undefined || (o.allOf ?? []).some((p) => this.#isObjectLike(p)));
  }

  /** Every member of an object (all variants of a union, all parts of an intersection); required where all require it. */
  #members(schema: JsonSchema): { members: Map<string, JsonSchema[]>; required: Set<string> } {
    const members = new Map<string, JsonSchema[]>();
    let required: Set<string> | undefined;
    for (const option of this.#options(schema)) {
      const parts = option.allOf ? option.allOf.map((p) => this.#resolve(p)) : [option];
      const own = new Set<string>();
      for (const part of parts) {
        for (const [key, member] of Object.entries(part.properties ?? {})) {
          if (isRefused(member)) continue;
          members.set(key, [...(members.get(key) ?? []), member]);
        }
        for (const key of part.required ?? []) own.add(key);
      }
      required = required ? new Set([...required].filter((k) => own.has(k))) : own;
    }
    return { members, required: required ?? new Set() };
  }

  /** An object's properties in program form (camelCase), marked from the family's paths. */
  properties(schema: JsonSchema, hint: string, path: string, marks: Marks): { properties: Record<string, PropertySpec>; required: string[] } {
    const { members, required } = this.#members(schema);
    const properties: Record<string, PropertySpec> = {};
    for (const [key, variants] of members) {
      const at = path === "" ? key : `${path}.${key}`;
      const name = schemaName(key);
      const member: JsonSchema = variants.length === 1 ? variants[0]! : { anyOf: variants };
      const spec: PropertySpec = { ...this.type(member, `${hint}${pascal(key)}`, at, marks) };
      const doc = marks.docs.get(at);
      if (doc?.description !== undefined) spec.description = doc.description;
      if (doc?.deprecated !== undefined) spec.deprecationMessage = doc.deprecated;
      if (marks.secrets.has(plainPath(at))) spec.secret = true;
      if (marks.createOnly.has(plainPath(at))) spec.replaceOnChanges = true;
      if (!/^[A-Za-z]/.test(name)) spec.language = { csharp: { name: operatorName(key) } };
      properties[name] = spec;
    }
    return { properties, required: [...required].filter((k) => members.has(k)).map(schemaName).sort() };
  }

  type(schema: JsonSchema, hint: string, path: string, marks: Marks): TypeSpec {
    if (schema.$ref !== undefined && this.#isObjectLike(schema)) {
      // Named once, so recursive shapes (conditions inside conditions) refer to themselves.
      const ref = `${this.#document}|${schema.$ref}`;
      const known = this.#refs.get(ref);
      if (known) return { $ref: `#/types/${known}` };
      const token = this.#tokens(hint).find((t) => !this.types[t]);
      if (!token) throw new Error(`schema: too many different types named ${hint}`);
      this.#refs.set(ref, token);
      this.types[token] = { type: "object", properties: {} };
      const { properties, required } = this.properties(this.#resolve(schema), hint, path, marks);
      this.types[token] = { type: "object", properties, ...(required.length ? { required } : {}) };
      return { $ref: `#/types/${token}` };
    }
    const options = this.#options(schema);
    if (options.length === 0) return ANY;
    if (this.#isObjectLike(schema)) {
      const { properties, required } = this.properties(schema, hint, path, marks);
      const token = this.#register(hint, { type: "object", properties, ...(required.length ? { required } : {}) });
      return { $ref: `#/types/${token}` };
    }
    const values = options.flatMap((o) => (o.enum ?? (o.const !== undefined ? [o.const] : undefined)) ?? [undefined]);
    if (values.length > 0 && values.every((v) => typeof v === "string" && NAMEABLE.test(v))) {
      const unique = [...new Set(values as string[])].sort();
      const token = this.#register(hint, { type: "string", enum: enumValues(unique) });
      return { $ref: `#/types/${token}` };
    }
    const types = options.map((o) => this.#single(o, hint, path, marks));
    const distinct = [...new Map(types.map((t) => [JSON.stringify(t), t])).values()];
    if (distinct.length === 1) return distinct[0]!;
    if (distinct.some((t) => t.$ref === ANY.$ref)) return ANY;
    return { oneOf: distinct };
  }

  #single(option: JsonSchema, hint: string, path: string, marks: Marks): TypeSpec {
    const type = typeof option.type === "string" ? option.type : typeof option.const === "string" ? "string" : undefined;
    if (type !== undefined && PRIMITIVES.has(type)) return { type };
    if (type === "array") return { type: "array", items: option.items ? this.type(option.items, hint, `${path}[]`, marks) : ANY };
    if (type === "object") {
      const values = option.additionalProperties;
      return { type: "object", additionalProperties: isObject(values) && Object.keys(values).length > 0 ? this.type(values, hint, `${path}.*`, marks) : ANY };
    }
    return ANY;
  }
}

function jsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  return z.toJSONSchema(schema, { io, unrepresentable: "any", cycles: "ref", reused: "inline" }) as JsonSchema;
}

/** The marks of a family's create or response schema, with the contract's field docs. */
function marksOf(family: FamilyDef, schema: z.ZodType): Marks {
  const docs = new Map(documentedMembers(family.collection as Collection, family, schema).map((m) => [m.path, m]));
  return { secrets: new Set(family.secrets.map(plainPath)), createOnly: new Set(family.createOnly.map(plainPath)), docs };
}

/** The marks of the provider's own inputs (controls, extra inputs): documented by their schemas' descriptions. */
function providerMarks(schema: z.ZodType): Marks {
  const docs = new Map(membersOf(schema).map((m) => [m.path, { description: m.schema.description }]));
  return { secrets: new Set(), createOnly: new Set(), docs };
}

function resourceSpec(providerFamily: ProviderFamily, builder: TypeBuilder): ResourceSpec {
  const { family } = providerFamily;
  const read = (schema: z.ZodType, io: "input" | "output", what: string, m: Marks) =>
    builder.properties(builder.document(jsonSchema(schema, io), `${providerFamily.family.className}/${what}`, io === "output" ? "Output" : "Args"), providerFamily.family.className, "", m);
  const inputs = read(family.create, "input", "create", marksOf(family, family.create));
  const outputs = read(family.response, "output", "response", marksOf(family, family.response));
  const extras = providerFamily.extraInputSchema ? read(providerFamily.extraInputSchema, "input", "extras", providerMarks(providerFamily.extraInputSchema)) : { properties: {}, required: [] };
  // Named without the family: every resource shares the controls' types (`audience:index:WaitFor`).
  const controls = builder.properties(builder.document(jsonSchema(controlsSchema, "input"), "controls", "Args"), "", "", providerMarks(controlsSchema));
  delete outputs.properties.id;
  const secret = new Set(providerFamily.secretOutputs);
  for (const [name, spec] of [...Object.entries(inputs.properties), ...Object.entries(outputs.properties)]) {
    if (secret.has(name)) spec.secret = true;
  }
  return {
    description: `${providerFamily.family.className}: the service's ${family.name.replaceAll("_", " ")} resource (\`/${family.path}\`).${family.creatable ? "" : " The service does not create these: give `adoptId` to manage an existing one."}`,
    inputProperties: { ...inputs.properties, ...extras.properties, ...controls.properties },
    requiredInputs: [...inputs.required, ...extras.required].sort(),
    properties: { ...outputs.properties, ...extras.properties, ...controls.properties },
    required: outputs.required.filter((name) => name !== "id"),
  };
}

const CONFIG_DOCS = {
  apiKey: "The API key of the account to manage. Kept secret.",
  baseUrl: "The service's base URL, e.g. https://<service>/v1.",
  accounts: "Named accounts (name -> {apiKey, baseUrl}) that a resource's `account` input may name. Prefer one explicit provider per account.",
  maxRetries: `How many times a request that failed in a way that may pass (a 429 or 503, a dropped connection) is sent again, with backoff: 0 to ${MOST_RETRIES}, ${DEFAULT_MAX_RETRIES} when unset.`,
};

function providerProperties(): Record<string, PropertySpec> {
  return {
    apiKey: { type: "string", secret: true, description: CONFIG_DOCS.apiKey, defaultInfo: { environment: ["AUDIENCE_API_KEY"] } },
    baseUrl: { type: "string", description: CONFIG_DOCS.baseUrl, defaultInfo: { environment: ["AUDIENCE_BASE_URL"] } },
    accounts: { type: "object", additionalProperties: { $ref: `#/types/${PACKAGE}:index:AccountCredentials` }, secret: true, description: CONFIG_DOCS.accounts },
    maxRetries: { type: "integer", description: CONFIG_DOCS.maxRetries, defaultInfo: { environment: ["AUDIENCE_MAX_RETRIES"] } },
  };
}

/** Where this project's code lives: the Go SDK's module path is under it. */
export const REPOSITORY = "github.com/pulumi-audience/pulumi-audience";

/**
 * What `pulumi package gen-sdk` / `pulumi package add` make of the schema in each language: package names that do
 * not collide with this npm package (its `native` entry is the TypeScript SDK), a Go module under our repository.
 */
function languages(): PackageSchema["language"] {
  return {
    nodejs: { packageName: "@pulumi-audience/sdk", packageDescription: "Audience-prediction pipelines as code (generated from the audience provider's schema).", dependencies: { "@pulumi/pulumi": "^3.0.0" }, respectSchemaVersion: true },
    python: { packageName: "pulumi_audience", requires: { pulumi: ">=3.0.0,<4.0.0" }, respectSchemaVersion: true, pyproject: { enabled: true } },
    go: { importBasePath: `${REPOSITORY}/sdk/go/audience`, generateResourceContainerTypes: true, generateExtraInputTypes: true, respectSchemaVersion: true },
    csharp: { rootNamespace: "PulumiAudience", namespaces: { [PACKAGE]: "Audience" }, packageReferences: { Pulumi: "3.*" }, respectSchemaVersion: true },
    java: { basePackage: "com.pulumiaudience" },
  };
}

/** The package schema, as `GetSchema` answers it and `audience schema` prints it. */
export function packageSchema(): PackageSchema {
  const types: PackageSchema["types"] = {
    [`${PACKAGE}:index:AccountCredentials`]: {
      type: "object",
      description: "How to reach one named account.",
      properties: { apiKey: { type: "string", secret: true, description: CONFIG_DOCS.apiKey }, baseUrl: { type: "string", description: CONFIG_DOCS.baseUrl } },
    },
  };
  const resources: PackageSchema["resources"] = {};
  const builder = new TypeBuilder(types);
  for (const providerFamily of Object.values(providerFamilies)) resources[resourceToken(providerFamily.family.className)] = resourceSpec(providerFamily, builder);
  const functions: PackageSchema["functions"] = {};
  for (const providerFamily of lookupFamilies()) {
    const resource = resources[resourceToken(providerFamily.family.className)]!;
    const outputs = Object.fromEntries(Object.entries(resource.properties).filter(([name]) => !(name in controlsSchema.shape)));
    functions[functionToken(providerFamily.family.className)] = {
      description: `The one ${providerFamily.family.className} with the name (or id) given; fails when none or several match, listing the names seen.`,
      inputs: {
        type: "object",
        properties: {
          name: { type: "string", description: "The resource's exact name." },
          id: { type: "string", description: "The resource's id." },
          account: { type: "string", description: "Entry of `audience:accounts` to look in; the provider's account when absent." },
        },
      },
      outputs: { type: "object", properties: { id: { type: "string", description: commonDocs.id }, ...outputs }, required: ["id", ...resource.required] },
    };
  }
  const config = providerProperties();
  return {
    name: PACKAGE,
    version: VERSION,
    displayName: "Audience",
    description: "Audience-prediction pipelines as code: scopes, targets, cohorts and every other resource of the audience prediction service.",
    keywords: ["pulumi", "audience", "category/cloud", "kind/native"],
    license: "Apache-2.0",
    repository: `https://${REPOSITORY}`,
    publisher: "pulumi-audience",
    // Without it, a runner that lacks the plugin would try Pulumi's own download server.
    ...(PLUGIN_DOWNLOAD_URL ? { pluginDownloadURL: PLUGIN_DOWNLOAD_URL } : {}),
    // supportPack: each generator writes its package manifest (Go's go.mod, Python's pyproject.toml) at the schema's version.
    meta: { moduleFormat: "(.*)", supportPack: true },
    config: { variables: config },
    provider: { description: "The provider of audience resources: one per account.", inputProperties: config, requiredInputs: [], properties: { baseUrl: config.baseUrl! }, required: [] },
    resources,
    functions,
    types,
    // TypeScript programs use `pulumi-audience/native`; generated SDKs serve the other languages.
    language: languages(),
  };
}
