// Field docs: what each member of a family means, its rules and its replacement when deprecated. Each family's
// definition holds them (`docs`, written beside its schemas), keyed by member path; the program types, the
// provider schema and the docs-coverage test read them from there. Defaults, enums and create-only marks are not written
// here: they follow from the schemas and the family (see `memberFacts`).
import { z } from "zod";
import { unwrap } from "./naming.ts";

/** A member's doc: a text, or a text and the member that replaces a deprecated one. */
export type MemberDoc = string | { doc: string; deprecated: string };

/**
 * Docs keyed by member path on the wire: dotted field names, `[]` for array elements, `*` for map values
 * (`population.cohort_ids`, `stream_conditions[]._eq`, `identity_sets.*.email`). Members of union variants share
 * their path (`options.table_name`).
 */
export type MemberDocs = Readonly<Record<string, MemberDoc>>;

/** The docs of a shared sub-schema, placed under the path where a family uses it. */
export function docsUnder(prefix: string, docs: MemberDocs): MemberDocs {
  return Object.fromEntries(Object.entries(docs).map(([path, doc]) => [`${prefix}.${path}`, doc]));
}

/** Text and deprecation note of a doc. */
export function docParts(doc: MemberDoc): { doc: string; deprecated?: string } {
  return typeof doc === "string" ? { doc } : doc;
}

/** One member of a schema, as the walk below finds it. */
export interface Member {
  /** Member path, as the docs tables key it. */
  path: string;
  /** The wire name of the member. */
  key: string;
  /** The member's schema as declared (with its optional / default / nullable wrappers). */
  schema: z.ZodType;
}

/** Object shapes of a schema: one for an object, one per variant for a union of objects. */
export function shapesOf(schema: z.ZodType): Record<string, z.ZodType>[] {
  const s = unwrap(schema);
  if (s instanceof z.ZodObject) return [s.shape as Record<string, z.ZodType>];
  if (s instanceof z.ZodUnion) return (s.def.options as z.ZodType[]).flatMap(shapesOf);
  if (s instanceof z.ZodIntersection) return [...shapesOf(s.def.left as z.ZodType), ...shapesOf(s.def.right as z.ZodType)];
  return [];
}

/** The schema of a member's values below arrays and maps, with the path suffix that reaches it. */
export function elementOf(schema: z.ZodType): { schema: z.ZodType; suffix: string } {
  const s = unwrap(schema);
  if (s instanceof z.ZodArray) {
    const inner = elementOf(s.def.element as z.ZodType);
    return { schema: inner.schema, suffix: `[]${inner.suffix}` };
  }
  if (s instanceof z.ZodRecord) {
    const inner = elementOf(s.def.valueType as z.ZodType);
    return { schema: inner.schema, suffix: `.*${inner.suffix}` };
  }
  return { schema: s, suffix: "" };
}

/** Whether a member may never be given (a union variant's refusal of another variant's member). */
export function isRefused(schema: z.ZodType): boolean {
  return unwrap(schema) instanceof z.ZodNever;
}

/** Every member of a schema, nested ones too (inside objects, arrays, maps and union variants), once per path. */
export function membersOf(schema: z.ZodType, prefix = ""): Member[] {
  const seen = new Set<string>();
  const out: Member[] = [];
  for (const shape of shapesOf(schema)) {
    for (const [key, member] of Object.entries(shape)) {
      if (isRefused(member)) continue;
      const path = prefix === "" ? key : `${prefix}.${key}`;
      if (seen.has(path)) continue;
      seen.add(path);
      out.push({ path, key, schema: member });
    }
  }
  return [...out, ...out.flatMap((m) => {
    const inner = elementOf(m.schema);
    return membersOf(inner.schema, `${m.path}${inner.suffix}`);
  })].filter((m, i, all) => all.findIndex((o) => o.path === m.path) === i);
}

/** The facts a doc states that follow from the schema and the family rather than from its text. */
export function memberFacts(member: z.ZodType, createOnly: boolean): string[] {
  const facts: string[] = [];
  let s: z.ZodType = member;
  let defaultValue: unknown;
  while (s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodDefault) {
    if (s instanceof z.ZodDefault) defaultValue = s.def.defaultValue;
    s = s.def.innerType as z.ZodType;
  }
  if (s instanceof z.ZodEnum) facts.push(`One of ${(s.options as string[]).map((v) => `\`${v}\``).join(", ")}.`);
  if (defaultValue !== undefined) facts.push(`Default: \`${JSON.stringify(defaultValue)}\`.`);
  if (createOnly) facts.push("Changing it replaces the resource.");
  return facts;
}

/** Whether a create member is marked deprecated in its schema (`.meta({ deprecated: true })`). */
export function isDeprecated(member: z.ZodType): boolean {
  return member.meta()?.deprecated === true;
}

/** The comparison operators of conditions: one doc each, wherever a condition takes them. */
export const operatorDocs = {
  _eq: "Equal to the value (text, number or boolean).",
  _in: "Equal to one of the listed values.",
  _nin: "Equal to none of the listed values.",
  _matches: "Text matching this regular expression (it must compile).",
  _gt: "Greater than the number.",
  _gte: "Greater than or equal to the number.",
  _lt: "Less than the number.",
  _lte: "Less than or equal to the number.",
  _null: "`true`: the value is absent.",
  _nnull: "`true`: the value is present.",
} as const satisfies MemberDocs;

/** The bookkeeping members every resource answers with. */
export const commonDocs = {
  id: "The resource's id (uuid), assigned by the service.",
  name: "The resource's name: a non-empty string.",
  created_at: "When the resource was created (ISO 8601).",
  updated_at: "When the resource was last changed (ISO 8601).",
  resource_type: "The family's collection name, e.g. `scopes`.",
  status: "Build status: `ready` once built, `error` when the last build failed.",
  status_changed_at: "When `status` last changed.",
  status_error: "Why the last build failed, when `status` is `error`.",
  archived_at: "When the resource was archived; absent while active.",
  last_read_input_at: "When the resource last read its inputs.",
  last_updated_config_at: "When the resource's configuration last changed.",
  last_updated_output_at: "When the resource last finished building.",
} as const satisfies MemberDocs;
