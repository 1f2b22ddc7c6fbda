// Writes `generated/program-types.ts`: the documented TypeScript face of every family (arguments, outputs, lookup
// result), one named interface per nested object, from the contract's schemas and field docs. Types derived by zod
// inference carry no JSDoc, so the docs reach editors only through generated declarations.
// `npm run gen:types` rewrites it, the two program faces and the registrations (faces-generator.ts) in the
// generated/ folders of their rooms; a test fails when one is stale.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { camelKey, documentedMembers, families, shapesOf, unwrap, type Collection, type DocumentedMember, type FamilyDef } from "pulumi-audience/sdk/contract";
import { providerFamilies } from "../families/index.ts";
import { controlsSchema } from "../lifecycle/controls.ts";
import { DYNAMIC_FACE_FILE, dynamicFace, NATIVE_FACE_FILE, nativeFace, REGISTRATIONS_FILE, registrationsModule } from "./faces-generator.ts";

export const PROGRAM_TYPES_FILE = fileURLToPath(new URL("../generated/program-types.ts", import.meta.url));

/** `args`: what a program passes (every level a `pulumi.Input`); `plain`: what the service answers. */
type Mode = "args" | "plain";

interface Emitter {
  collection: Collection;
  family: FamilyDef;
  mode: Mode;
  /** Members of the schema being emitted, by path, with their docs. */
  members: Map<string, DocumentedMember>;
  /** Declarations emitted so far, by name. */
  out: Map<string, string>;
  /**
   * Paths of union discriminants (`options.type`): plain literals even in args, so that TypeScript picks the
   * variant (hover docs, errors naming the variant's members), as Pulumi's generated SDKs type them.
   */
  discriminants: Set<string>;
}

const pascal = (wire: string) => {
  const camel = camelKey(wire);
  return camel.charAt(0).toUpperCase() + camel.slice(1);
};

/** The singular of a collection-like member name, for the interface of its elements. */
function singular(word: string): string {
  if (word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.endsWith("ss")) return word;
  return word.endsWith("s") ? word.slice(0, -1) : word;
}

/** A JSDoc block at `indent`, wrapped to a readable width. */
function jsdoc(text: string, deprecated: string | undefined, indent: string): string {
  const lines: string[] = [];
  const wrap = (paragraph: string) => {
    let line = "";
    for (const word of paragraph.split(" ")) {
      if (line !== "" && line.length + word.length + 1 > 100) {
        lines.push(line);
        line = word;
      } else {
        line = line === "" ? word : `${line} ${word}`;
      }
    }
    if (line !== "") lines.push(line);
  };
  wrap(text);
  if (deprecated !== undefined) wrap(`@deprecated ${deprecated}`);
  if (lines.length === 1 && `${indent}/** ${lines[0]} */`.length <= 118) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((l) => `${indent} * ${l}`).join("\n")}\n${indent} */\n`;
}

function wrapIf(mode: Mode, type: string): string {
  return mode === "args" ? `pulumi.Input<${type}>` : type;
}

/** Whether the member may be left out: of the input (`args`) or of the answer (`plain`). */
function isOptional(schema: z.ZodType, mode: Mode): boolean {
  const zod = schema._zod as { optin?: string; optout?: string };
  return unwrap(schema) instanceof z.ZodUnknown || (mode === "args" ? zod.optin !== undefined : zod.optout === "optional");
}

function acceptsNull(schema: z.ZodType): boolean {
  let s: z.ZodType = schema;
  while (s instanceof z.ZodOptional || s instanceof z.ZodDefault || s instanceof z.ZodNullable) {
    if (s instanceof z.ZodNullable) return true;
    s = s.def.innerType as z.ZodType;
  }
  return false;
}

/** The TypeScript type of a value of `schema` at `path`, declaring the interfaces it needs under `name`. */
function typeOf(e: Emitter, schema: z.ZodType, path: string, name: string): string {
  const s = unwrap(schema);
  // String formats (uuid, url) are strings of their own classes; their kind says what they are.
  const primitive = { string: "string", number: "number", boolean: "boolean", null: "null", unknown: "unknown" }[s.def.type as string];
  if (primitive !== undefined) return primitive;
  if (s instanceof z.ZodEnum) return (s.options as string[]).map((v) => JSON.stringify(v)).join(" | ");
  if (s instanceof z.ZodLiteral) return [...s.values].map((v) => JSON.stringify(v)).join(" | ");
  if (s instanceof z.ZodArray) {
    const element = typeOf(e, s.def.element as z.ZodType, `${path}[]`, name);
    const wrapped = wrapIf(e.mode, element);
    return wrapped.includes(" | ") && e.mode === "plain" ? `(${wrapped})[]` : `${wrapped}[]`;
  }
  if (s instanceof z.ZodRecord) {
    const value = typeOf(e, s.def.valueType as z.ZodType, `${path}.*`, name);
    return `{ [key: string]: ${wrapIf(e.mode, value)} }`;
  }
  if (s instanceof z.ZodObject) return declareObject(e, s, path, name);
  if (s instanceof z.ZodUnion) {
    const options = s.def.options as z.ZodType[];
    const discriminator = (s.def as { discriminator?: string }).discriminator;
    if (discriminator !== undefined) {
      e.discriminants.add(path === "" ? discriminator : `${path}.${discriminator}`);
      const tags: string[] = [];
      const variants = options.map((option) => {
        const shape = shapesOf(option)[0] ?? {};
        const tag = [...((unwrap(shape[discriminator] ?? z.never())._zod as { values?: Set<string> }).values ?? [])][0] ?? "";
        tags.push(tag);
        return typeOf(e, option, path, `${name}${pascal(tag)}`);
      });
      if (e.mode === "args") variants.push(unmatchedVariant(e, name, discriminator, tags));
      return declare(e, name, `${jsdoc(unionDoc(e, path, discriminator), undefined, "")}export type ${suffixed(e, name)} = ${variants.join(" | ")};\n`);
    }
    return [...new Set(options.map((o) => typeOf(e, o, path, name)))].join(" | ");
  }
  throw new Error(`${e.collection} ${path}: no TypeScript form for a ${s.def.type} schema`);
}

/** The key of the member that only `unmatchedVariant`s have. */
export const UNMATCHED_KEY = "__unmatched";

/**
 * The last variant of a union of args: one no value can be (it needs a member of type never), whose discriminant
 * takes every tag. When a program's tag matches no variant, TypeScript checks it against the last one, so its error
 * names every allowed tag (and suggests the nearest) instead of only the last variant's.
 */
function unmatchedVariant(e: Emitter, name: string, discriminator: string, tags: readonly string[]): string {
  const key = camelKey(discriminator);
  const allowed = tags.map((t) => JSON.stringify(t)).join(" | ");
  return declare(e, `${name}Unmatched`, `/** Not a value to give: it makes TypeScript name every allowed \`${key}\` when the one given matches none. */\n`
    + `export interface ${suffixed(e, `${name}Unmatched`)} {\n`
    + `  /** One of ${tags.map((t) => `\`${t}\``).join(", ")}. */\n  ${key}: ${allowed};\n`
    + `  /** Never given (no value has type never). */\n  ${UNMATCHED_KEY}: never;\n}\n`);
}

function unionDoc(e: Emitter, path: string, discriminator: string): string {
  return `${docOf(e, path)} Chosen by \`${camelKey(discriminator)}\`.`;
}

/** The doc of the member at `path`; an array element or map value is described by its member. */
function docOf(e: Emitter, path: string): string {
  const member = e.members.get(path.replace(/(\[\]|\.\*)+$/, ""));
  if (member?.description === undefined) throw new Error(`${e.collection}: member ${path} has no doc; write one in its family's docs table`);
  return member.description;
}

function suffixed(e: Emitter, name: string): string {
  return e.mode === "args" ? `${name}Args` : name;
}

function declare(e: Emitter, name: string, text: string): string {
  const full = suffixed(e, name);
  const seen = e.out.get(full);
  if (seen !== undefined && seen !== "" && seen !== text) throw new Error(`two program types are named ${full}`);
  e.out.set(full, text);
  return full;
}

/** How a member is declared: `key?: type` by default. */
type MemberLine = (key: string, optional: boolean, type: string) => string;
const declaredMember: MemberLine = (key, optional, type) => `${key}${optional ? "?" : ""}: ${type}`;

/** The members of an object as interface lines (`skip` leaves some out). */
function memberLines(e: Emitter, shape: Record<string, z.ZodType>, prefix: string, name: string,
  line: MemberLine = declaredMember, skip: (key: string) => boolean = () => false): string {
  let body = "";
  for (const [key, member] of Object.entries(shape)) {
    if (skip(key) || unwrap(member) instanceof z.ZodNever) continue;
    const path = prefix === "" ? key : `${prefix}.${key}`;
    const documented = e.members.get(path);
    const segment = `${name}${pascal(key)}`;
    const base = unwrap(member);
    const elementName = base instanceof z.ZodArray || base instanceof z.ZodRecord ? `${name}${pascal(singular(key))}` : segment;
    let type = typeOf(e, member, path, elementName);
    if (acceptsNull(member) && type !== "unknown") type = `${type} | null`;
    const optional = isOptional(member, e.mode);
    body += jsdoc(docOf(e, path), documented?.deprecated, "  ");
    body += `  ${line(camelKey(key), optional, e.discriminants.has(path) ? type : wrapIf(e.mode, type))};\n`;
  }
  return body;
}

function declareObject(e: Emitter, object: z.ZodObject, path: string, name: string): string {
  const full = suffixed(e, name);
  if (!e.out.has(full)) e.out.set(full, ""); // keeps the outer interface ahead of those its members declare
  const doc = jsdoc(docOf(e, path), undefined, "");
  return declare(e, name, `${doc}export interface ${full} {\n${memberLines(e, object.shape as Record<string, z.ZodType>, path, name)}}\n`);
}

function emitter(collection: Collection, mode: Mode, schema: z.ZodType, out: Map<string, string>): Emitter {
  const family = families[collection] as FamilyDef;
  const members = new Map(documentedMembers(collection, family, schema).map((m) => [m.path, m]));
  return { collection, family, mode, members, out, discriminants: new Set() };
}

function hasExtraInputs(collection: Collection): boolean {
  return (providerFamilies[collection]?.extraInputs.length ?? 0) > 0;
}

/** The declarations of one family, in dependency-free order (TypeScript hoists them). */
function familyTypes(collection: Collection): string {
  const family = families[collection] as FamilyDef;
  const name = family.className;
  const hasExtras = hasExtraInputs(collection);
  const parts: string[] = [];

  const argsOut = new Map<string, string>();
  const args = emitter(collection, "args", family.create, argsOut);
  const createShape = shapesOf(family.create)[0] ?? {};
  const argLines = memberLines(args, createShape, "", name);
  // Families with inputs beyond their body extend `<Name>ExtraArgs` / `<Name>ExtraOutputs`, written in types.ts.
  const argBases = ["ResourceControls", ...(hasExtras ? [`${name}ExtraArgs`] : [])];
  parts.push(`/** Arguments of \`new ${name}(name, args)\`: the service's members in camelCase and the provider's controls. */\n`
    + (argLines === "" ? `export type ${name}Args = ${argBases.join(" & ")};\n` : `export interface ${name}Args extends ${argBases.join(", ")} {\n${argLines}}\n`));
  parts.push(...argsOut.values());

  const plainOut = new Map<string, string>();
  const plain = emitter(collection, "plain", family.response, plainOut);
  const responseShape = shapesOf(family.response)[0] ?? {};
  const article = /^[AEIOU]/.test(name) ? "an" : "a";
  parts.push(`/** What the service answers for ${article} \`${name}\`, in camelCase (what its lookup resolves to). */\n`
    + `export interface ${name}Result {\n${memberLines(plain, responseShape, "", name)}}\n`);
  // Outputs: every answered member but the id (the resource's own `id`), as `pulumi.Output`s of the plain types.
  const outputLine: MemberLine = (key, optional, type) => `readonly ${key}: pulumi.Output<${type}${optional ? " | undefined" : ""}>`;
  const outputLines = memberLines(plain, responseShape, "", name, outputLine, (key) => key === "id");
  const outputBases = hasExtras ? ` extends ${name}ExtraOutputs` : "";
  parts.push(`/** Outputs of ${article} \`${name}\` resource: every member the service answers (its id is the resource's own \`id\`). */\n`
    + `export interface ${name}Outputs${outputBases} {\n${outputLines}}\n`);
  parts.push(...plainOut.values());
  return parts.join("\n");
}

/** The controls every resource takes, each documented by its description in `controlsSchema`. */
function resourceControls(): string {
  const lines = Object.entries(controlsSchema.shape).map(([key, member]) => {
    if (member.description === undefined) throw new Error(`control ${key} has no description; describe it in controlsSchema`);
    return `${jsdoc(member.description, undefined, "  ")}  ${key}?: ControlArgs["${key}"];\n`;
  });
  return "/** Inputs every resource takes that steer the provider; recorded in state, never sent to the service. */\n"
    + `export interface ResourceControls {\n${lines.join("")}}\n`;
}

/** The whole generated module. */
export function programTypes(): string {
  const collections = Object.keys(families) as Collection[];
  const extras = collections.filter(hasExtraInputs).map((c) => families[c].className);
  const imports = ["ControlArgs", ...extras.flatMap((n) => [`${n}ExtraArgs`, `${n}ExtraOutputs`])].sort();
  const table = collections.map((c) => {
    const n = families[c].className;
    return `  /** \`${n}\`: its arguments, outputs and lookup result. */\n  ${c}: { args: ${n}Args; outputs: ${n}Outputs; result: ${n}Result };`;
  });
  return [
    "// Generated by `npm run gen:types` from the contract's schemas and field docs (sdk/contract); do not edit.",
    "// The program types of every family: arguments and outputs of its resource class, the result of its lookup.",
    'import type * as pulumi from "@pulumi/pulumi";',
    `import type { ${imports.join(", ")} } from "../resources/program-inputs.ts";`,
    "",
    "/** The program types of each family, by collection. */",
    "export interface FamilyTypes {",
    ...table,
    "}",
    "",
    resourceControls(),
    collections.map(familyTypes).join("\n"),
  ].join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const [file, text] of [[PROGRAM_TYPES_FILE, programTypes()], [DYNAMIC_FACE_FILE, dynamicFace()], [NATIVE_FACE_FILE, nativeFace()], [REGISTRATIONS_FILE, registrationsModule()]] as const) {
    writeFileSync(file, text);
    console.log(`wrote ${file}`);
  }
}
