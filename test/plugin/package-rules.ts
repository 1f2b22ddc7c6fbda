// The rules of Pulumi package schemas our schema relies on, stated in our own words as a JSON Schema (2020-12) for
// ajv. Pulumi's metaschema cannot live in this repository; these rules are what code generators and the engine
// need of ours: tokens of the package, one kind of type spec per property, references that resolve, required
// members that exist, enum values of their type, config defaults among the variables, functions with objects.
// Where a rule ties two parts of a document (a `$ref` and the types, a required name and the properties), the JSON
// Schema is built for that document: the names it may use are those the document defines.

type Doc = Record<string, unknown>;
type JsonSchema = Record<string, unknown>;

const PRIMITIVES = ["string", "integer", "number", "boolean"] as const;
/** The JSON Schema type each primitive's values have. */
const VALUE_TYPES: Record<(typeof PRIMITIVES)[number], string> = { string: "string", integer: "integer", number: "number", boolean: "boolean" };
/** Pulumi's built-in types a property may refer to. */
const BUILTIN_REFS = ["pulumi.json#/Any", "pulumi.json#/Archive", "pulumi.json#/Asset"];

const keysOf = (value: unknown): string[] => (typeof value === "object" && value !== null ? Object.keys(value) : []);
const section = (doc: Doc, name: string): Record<string, Doc> => (doc[name] ?? {}) as Record<string, Doc>;

/** Names drawn from `names` only (an empty list allows none). */
const namesAmong = (names: string[]): JsonSchema => ({ type: "array", uniqueItems: true, items: { enum: names.length > 0 ? names : [null] } });

/** Each member of `byToken` valid against the definition `def` and what `rule` makes of it. */
const each = (byToken: Record<string, Doc>, def: string, rule: (entry: Doc) => JsonSchema): JsonSchema =>
  Object.fromEntries(Object.entries(byToken).map(([token, entry]) => [token, { allOf: [{ $ref: `#/$defs/${def}` }, rule(entry)] }]));

/** `type` set to one of `types` and no member of `absent`. */
function shaped(types: readonly string[] | undefined, required: string[], absent: string[]): JsonSchema {
  return {
    required,
    ...(types ? { properties: { type: { enum: types } } } : {}),
    not: { anyOf: absent.map((key) => ({ required: [key] })) },
  };
}

/** An object's members: a map of property specs and the names among them that are required. */
function objectOf(entry: Doc, properties: string, required: string): JsonSchema {
  return { properties: { [properties]: { type: "object" }, [required]: namesAmong(keysOf(entry[properties])) } };
}

export function packageRules(doc: Doc): JsonSchema {
  const name = typeof doc.name === "string" ? doc.name : "";
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const types = section(doc, "types");
  const resources = section(doc, "resources");
  const functions = section(doc, "functions");
  const variables = keysOf((doc.config as Doc | undefined)?.variables);
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    required: ["name", "version", "config", "provider", "resources", "types", "functions"],
    properties: {
      name: { type: "string", pattern: "^[a-z][a-z0-9-]*$" },
      version: { type: "string", pattern: "^\\d+\\.\\d+\\.\\d+(-[0-9A-Za-z.-]+)?(\\+[0-9A-Za-z.-]+)?$" },
      config: {
        type: "object",
        properties: { variables: { $ref: "#/$defs/properties" }, defaults: namesAmong(variables) },
        unevaluatedProperties: false,
      },
      provider: { $ref: "#/$defs/resource" },
      types: {
        type: "object",
        propertyNames: { pattern: `^${escaped}:[a-z][A-Za-z0-9._/-]*:[A-Z][A-Za-z0-9]*$` },
        properties: each(types, "typeDef", (t) => objectOf(t, "properties", "required")),
      },
      resources: {
        type: "object",
        propertyNames: { pattern: `^${escaped}:[a-z][A-Za-z0-9._/-]*:[A-Z][A-Za-z0-9]*$` },
        properties: each(resources, "resource", (r) => ({ allOf: [objectOf(r, "inputProperties", "requiredInputs"), objectOf(r, "properties", "required")] })),
      },
      functions: {
        type: "object",
        propertyNames: { pattern: `^${escaped}:[a-z][A-Za-z0-9._/-]*:[a-z][A-Za-z0-9]*$` },
        properties: each(functions, "function", (f) => ({
          properties: { inputs: objectOf((f.inputs ?? {}) as Doc, "properties", "required"), outputs: objectOf((f.outputs ?? {}) as Doc, "properties", "required") },
        })),
      },
    },
    $defs: {
      /** What a property's type is: exactly one of these forms. */
      typeSpec: {
        type: "object",
        oneOf: [
          { title: "primitive", ...shaped(PRIMITIVES, ["type"], ["items", "additionalProperties", "$ref", "oneOf"]) },
          { title: "array", ...shaped(["array"], ["type", "items"], ["additionalProperties", "$ref", "oneOf"]), properties: { type: { const: "array" }, items: { $ref: "#/$defs/typeSpec" } } },
          { title: "map", ...shaped(["object"], ["type", "additionalProperties"], ["items", "$ref", "oneOf"]), properties: { type: { const: "object" }, additionalProperties: { $ref: "#/$defs/typeSpec" } } },
          { title: "reference", ...shaped(undefined, ["$ref"], ["type", "items", "additionalProperties", "oneOf"]), properties: { $ref: { enum: [...BUILTIN_REFS, ...Object.keys(types).map((t) => `#/types/${t}`)] } } },
          { title: "union", ...shaped(undefined, ["oneOf"], ["items", "additionalProperties", "$ref"]), properties: { oneOf: { type: "array", minItems: 2, items: { $ref: "#/$defs/typeSpec" } } } },
        ],
      },
      /** A type spec with what a property adds to it; a default is a value of the property's type. */
      property: {
        allOf: [
          { $ref: "#/$defs/typeSpec" },
          ...PRIMITIVES.map((p) => ({ if: { properties: { type: { const: p } }, required: ["type"] }, then: { properties: { default: { type: VALUE_TYPES[p] } } } })),
        ],
        properties: {
          type: true, items: true, additionalProperties: true, $ref: true, oneOf: true,
          description: { type: "string" },
          secret: { type: "boolean" },
          replaceOnChanges: { type: "boolean" },
          willReplaceOnChanges: { type: "boolean" },
          deprecationMessage: { type: "string" },
          language: { $ref: "#/$defs/propertyLanguage" },
          default: { type: ["string", "number", "boolean"] },
          defaultInfo: {
            type: "object",
            required: ["environment"],
            properties: { environment: { type: "array", minItems: 1, items: { type: "string", minLength: 1 } } },
            additionalProperties: false,
          },
        },
        unevaluatedProperties: false,
      },
      properties: { type: "object", additionalProperties: { $ref: "#/$defs/property" } },
      /** A member's name per language: .NET's codegen reads `csharp.name` (Go's reads none: `$gte` is `Gte` there). */
      propertyLanguage: {
        type: "object",
        properties: { csharp: { type: "object", required: ["name"], properties: { name: { type: "string", pattern: "^[A-Z][A-Za-z0-9]*$" } }, additionalProperties: false } },
        additionalProperties: { type: "object" },
      },
      names: { type: "array", items: { type: "string" } },
      /** An object type, or an enum of values of a primitive type. */
      typeDef: {
        type: "object",
        oneOf: [
          { title: "object", $ref: "#/$defs/objectSpec" },
          {
            title: "enum",
            required: ["type", "enum"],
            properties: {
              type: { enum: PRIMITIVES },
              enum: {
                type: "array",
                minItems: 1,
                items: {
                  type: "object",
                  required: ["value"],
                  properties: { value: true, name: { type: "string" }, description: { type: "string" }, deprecationMessage: { type: "string" } },
                  additionalProperties: false,
                },
              },
              description: { type: "string" },
            },
            additionalProperties: false,
            allOf: PRIMITIVES.map((p) => ({
              if: { properties: { type: { const: p } } },
              then: { properties: { enum: { items: { properties: { value: { type: VALUE_TYPES[p] } } } } } },
            })),
          },
        ],
      },
      resource: {
        type: "object",
        required: ["inputProperties"],
        properties: {
          description: { type: "string" },
          deprecationMessage: { type: "string" },
          inputProperties: { $ref: "#/$defs/properties" },
          requiredInputs: { $ref: "#/$defs/names" },
          properties: { $ref: "#/$defs/properties" },
          required: { $ref: "#/$defs/names" },
        },
        additionalProperties: false,
      },
      /** A function takes an object and returns one. */
      function: {
        type: "object",
        required: ["inputs", "outputs"],
        properties: { description: { type: "string" }, inputs: { $ref: "#/$defs/objectSpec" }, outputs: { $ref: "#/$defs/objectSpec" } },
        additionalProperties: false,
      },
      /** An object's members and the names of those required. */
      objectSpec: {
        type: "object",
        required: ["type", "properties"],
        properties: { type: { const: "object" }, properties: { $ref: "#/$defs/properties" }, required: { $ref: "#/$defs/names" }, description: { type: "string" } },
        additionalProperties: false,
      },
    },
  };
}
