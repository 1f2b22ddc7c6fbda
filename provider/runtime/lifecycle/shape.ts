// Turning values between the three forms the lifecycle meets: the program's camelCase inputs, the wire body the
// contract validates, and the service's response. All of it is guided by the family's zod schemas.
import { z } from "zod";
import { camelKey, fromWire, isObject, SECRET_PLACEHOLDER, toWire, unwrap } from "pulumi-audience/sdk/contract";
import { UNKNOWN } from "../../protocol/markers.ts";

export { isObject, UNKNOWN };

import type { Props } from "../families/index.ts";

export type { Props };

/** Wire paths (`a.b[0]`) of every unknown value inside `value`. */
export function unknownPaths(value: unknown, path = ""): string[] {
  if (value === UNKNOWN) return [path];
  if (Array.isArray(value)) return value.flatMap((v, i) => unknownPaths(v, `${path}[${i}]`));
  if (isObject(value)) {
    return Object.entries(value).flatMap(([k, v]) => unknownPaths(v, path === "" ? k : `${path}.${k}`));
  }
  return [];
}

/** True when `a` is `b`, inside it, or encloses it (a rule on one may depend on the other). */
export function pathsOverlap(a: string, b: string): boolean {
  const within = (inner: string, outer: string) =>
    outer === "" || inner === outer || inner.startsWith(`${outer}.`) || inner.startsWith(`${outer}[`);
  return within(a, b) || within(b, a);
}

/** A wire path's members and indices: `a.b[0]` -> `["a", "b", 0]`. */
export function wireSegments(path: string): (string | number)[] {
  const out: (string | number)[] = [];
  for (const match of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) {
    if (match[2] !== undefined) out.push(Number(match[2]));
    else if (match[1] !== undefined) out.push(match[1]);
  }
  return out;
}

/** The camelCase path a program author wrote for a wire path, e.g. `population.cohort_ids[0]` -> `population.cohortIds[0]`. */
export function camelPath(schema: z.ZodType, wirePath: string): string {
  const segments = wireSegments(wirePath);
  if (segments.length === 0) return wirePath;
  const marker = Symbol("here");
  let value: unknown = marker;
  for (let i = segments.length - 1; i >= 0; i--) {
    const segment = segments[i];
    if (typeof segment === "number") {
      const array: unknown[] = new Array<unknown>(segment).fill(null);
      array.push(value);
      value = array;
    } else if (segment !== undefined) {
      value = { [segment]: value };
    }
  }
  const renamed = fromWire(schema, value);
  const find = (v: unknown, path: string): string | undefined => {
    if (v === marker) return path;
    if (Array.isArray(v)) {
      const i = v.length - 1;
      return find(v[i], `${path}[${i}]`);
    }
    if (isObject(v)) {
      const [key, child] = Object.entries(v)[0] ?? [];
      if (key !== undefined) return find(child, path === "" ? key : `${path}.${key}`);
    }
    return undefined;
  };
  return find(renamed, "") ?? wirePath;
}

/** Removes null and undefined members (deeply): absent and null mean the same thing for comparison. */
export function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (!isObject(value)) return value;
  const out: Props = {};
  for (const [k, v] of Object.entries(value)) {
    if (v !== null && v !== undefined) out[k] = withoutNulls(v);
  }
  return out;
}

/** Keeps only the members of `value` that `schema` describes (a response seen through the create shape). */
export function project(schema: z.ZodType, value: unknown): unknown {
  const s = unwrap(schema);
  if (Array.isArray(value)) {
    return s instanceof z.ZodArray ? value.map((v) => project(s.def.element as z.ZodType, v)) : value;
  }
  if (!isObject(value)) return value;
  if (s instanceof z.ZodObject) {
    const shape = s.shape as Record<string, z.ZodType>;
    const out: Props = {};
    for (const [k, v] of Object.entries(value)) {
      const field = shape[k];
      if (field) out[k] = project(field, v);
    }
    return out;
  }
  if (s instanceof z.ZodRecord) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, project(s.def.valueType as z.ZodType, v)]));
  }
  if (s instanceof z.ZodUnion) {
    const options = s.def.options as z.ZodType[];
    // A discriminated union's value names its option: only that one can accept the projection.
    const named = chosenOption(s, value);
    if (named !== undefined) {
      const projected = project(named, value);
      if (named.safeParse(projected).success) return projected;
    }
    const projected = options.map((o) => project(o, value));
    // The option that accepts the projection is the right one; failing that, the one that kept the most.
    const valid = projected.find((p, i) => options[i]?.safeParse(p).success);
    if (valid !== undefined) return valid;
    return projected.reduce((best, p) => (size(p) > size(best) ? p : best), {} as unknown);
  }
  if (s instanceof z.ZodIntersection) {
    const left = project(s.def.left as z.ZodType, value);
    const right = project(s.def.right as z.ZodType, value);
    return { ...(isObject(left) ? left : {}), ...(isObject(right) ? right : {}) };
  }
  return value;
}

const optionsByTag = new WeakMap<z.ZodUnion, Map<unknown, z.ZodType[]>>();

/** The option of a discriminated union whose discriminator value `value` carries, if exactly one does. */
function chosenOption(union: z.ZodUnion, value: Props): z.ZodType | undefined {
  const discriminator = (union.def as { discriminator?: string }).discriminator;
  if (discriminator === undefined || !(discriminator in value)) return undefined;
  let byTag = optionsByTag.get(union);
  if (!byTag) {
    byTag = new Map();
    for (const option of union.def.options as z.ZodType[]) {
      const s = unwrap(option);
      const field = s instanceof z.ZodObject ? (s.shape as Record<string, z.ZodType>)[discriminator] : undefined;
      for (const tag of field ? ((unwrap(field)._zod as { values?: Set<unknown> }).values ?? []) : []) byTag.set(tag, [...(byTag.get(tag) ?? []), option]);
    }
    optionsByTag.set(union, byTag);
  }
  const matching = byTag.get(value[discriminator]);
  return matching?.length === 1 ? matching[0] : undefined;
}

function size(value: unknown): number {
  return isObject(value) ? Object.keys(value).length : 0;
}

/**
 * The canonical wire form of a resource's configuration: defaults applied by the create schema, nulls dropped,
 * members the create shape does not know left out. Two configurations mean the same when their forms are
 * `jsonEqual`. Values the schema refuses (unknowns during preview) are compared as written.
 */
export function canonical(create: z.ZodType, wire: unknown): unknown {
  const projected = withoutNulls(project(create, withoutNulls(wire)));
  const parsed = create.safeParse(projected);
  if (parsed.success) return withoutNulls(parsed.data);
  // A member that cannot parse yet (unknown in a preview) leaves the others to parse, each filling its defaults, so
  // that they compare as the recorded ones do.
  const shape = unwrap(create);
  if (!(shape instanceof z.ZodObject) || !isObject(projected)) return projected;
  const members: Props = { ...projected };
  for (const [key, member] of Object.entries(shape.shape as Record<string, z.ZodType>)) {
    const one = member.safeParse(projected[key]);
    if (one.success && one.data !== undefined) members[key] = one.data;
  }
  return withoutNulls(members);
}

/** Camel program inputs -> wire body. */
export function wireOf(create: z.ZodType, inputs: Props): Props {
  const wire = toWire(create, inputs);
  return isObject(wire) ? wire : {};
}

/** Replaces `<secret>` placeholders with the value at the same path in `known` (what the program declared). */
export function keepSecrets(value: unknown, known: unknown): unknown {
  if (value === SECRET_PLACEHOLDER) return known ?? value;
  if (Array.isArray(value)) return value.map((v, i) => keepSecrets(v, Array.isArray(known) ? known[i] : undefined));
  if (!isObject(value)) return value;
  const out: Props = {};
  for (const [k, v] of Object.entries(value)) out[k] = keepSecrets(v, isObject(known) ? known[k] : undefined);
  return out;
}

/** Every member name a schema's objects may carry (all options of a union). */
export function memberNames(schema: z.ZodType): string[] {
  const s = unwrap(schema);
  if (s instanceof z.ZodObject) return Object.keys(s.shape);
  if (s instanceof z.ZodUnion) return [...new Set((s.def.options as z.ZodType[]).flatMap(memberNames))];
  if (s instanceof z.ZodIntersection) return [...memberNames(s.def.left as z.ZodType), ...memberNames(s.def.right as z.ZodType)];
  return [];
}

/**
 * The member names of the object at `wirePath` in the schema (of every option where it may be one of several, but
 * the option `value`, the wire document, names by its discriminator).
 */
export function membersAt(schema: z.ZodType, wirePath: readonly (string | number)[], value?: unknown): string[] {
  const [segment, ...rest] = wirePath;
  const s = unwrap(schema);
  if (s instanceof z.ZodUnion) {
    const chosen = isObject(value) ? chosenOption(s, value) : undefined;
    if (chosen) return membersAt(chosen, wirePath, value);
    return [...new Set((s.def.options as z.ZodType[]).flatMap((option) => membersAt(option, wirePath, value)))];
  }
  if (segment === undefined) return memberNames(s);
  if (s instanceof z.ZodIntersection) return [...new Set([...membersAt(s.def.left as z.ZodType, wirePath, value), ...membersAt(s.def.right as z.ZodType, wirePath, value)])];
  const below = Array.isArray(value) || isObject(value) ? (value as Record<string | number, unknown>)[segment] : undefined;
  if (typeof segment === "number") return s instanceof z.ZodArray ? membersAt(s.def.element as z.ZodType, rest, below) : [];
  if (s instanceof z.ZodRecord) return membersAt(s.def.valueType as z.ZodType, rest, below);
  const member = s instanceof z.ZodObject ? (s.shape as Record<string, z.ZodType>)[segment] : undefined;
  return member ? membersAt(member, rest, below) : [];
}

/** Every member name of the schema at any depth: in objects within lists, maps, unions and intersections. */
const namesWithin = new WeakMap<z.ZodType, ReadonlySet<string>>();
export function allMemberNames(schema: z.ZodType): ReadonlySet<string> {
  let names = namesWithin.get(schema);
  if (names) return names;
  const found = new Set<string>();
  const seen = new Set<z.ZodType>(); // shapes that hold themselves (conditions within conditions)
  const walk = (within: z.ZodType) => {
    const s = unwrap(within);
    if (seen.has(s)) return;
    seen.add(s);
    if (s instanceof z.ZodObject) {
      for (const [key, member] of Object.entries(s.shape as Record<string, z.ZodType>)) {
        found.add(key);
        walk(member);
      }
    } else if (s instanceof z.ZodArray) walk(s.def.element as z.ZodType);
    else if (s instanceof z.ZodRecord) walk(s.def.valueType as z.ZodType);
    else if (s instanceof z.ZodUnion) for (const option of s.def.options as z.ZodType[]) walk(option);
    else if (s instanceof z.ZodIntersection) {
      walk(s.def.left as z.ZodType);
      walk(s.def.right as z.ZodType);
    }
  };
  walk(schema);
  namesWithin.set(schema, (names = found));
  return names;
}

/** A URL signed for a time (`expires`, `signature`): re-signed copies of it name the same file. */
function signedUrl(value: unknown): { base: string; expires: number } | undefined {
  if (typeof value !== "string" || !/^https?:\/\//.test(value)) return undefined;
  try {
    const url = new URL(value);
    const expires = Number(url.searchParams.get("expires"));
    if (!url.searchParams.has("signature") || !Number.isFinite(expires)) return undefined;
    return { base: `${url.origin}${url.pathname}`, expires: expires * 1000 };
  } catch {
    return undefined;
  }
}

/**
 * Keeps a recorded signed URL while it stays valid for at least ten more minutes when the service answers a
 * freshly signed one for the same file: a new signature is not a change; one about to expire is renewed.
 */
export function keepSignedUrls(value: unknown, recorded: unknown, now = Date.now()): unknown {
  const fresh = signedUrl(value);
  const old = signedUrl(recorded);
  if (fresh && old && fresh.base === old.base && old.expires - now > 600_000) return recorded;
  if (Array.isArray(value)) return value.map((v, i) => keepSignedUrls(v, Array.isArray(recorded) ? recorded[i] : undefined, now));
  if (!isObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, keepSignedUrls(v, isObject(recorded) ? recorded[k] : undefined, now)]));
}

/** Wrappers parsing looks through without changing the value (defaults aside). */
const PASS_THROUGH = new Set(["optional", "nullable", "readonly", "nonoptional", "default", "prefault"]);
const LEAVES = new Set(["string", "number", "boolean", "bigint", "enum", "literal", "null", "any", "unknown", "never"]);
const fillsOnly = new WeakMap<z.ZodType, boolean>();

/** Whether parsing a value of `schema` can change it only by filling defaults (no transform, coercion, catch). */
function parseFillsOnly(schema: z.ZodType): boolean {
  let known = fillsOnly.get(schema);
  if (known === undefined) {
    const seen = new Set<unknown>();
    const plain = (s: z.ZodType): boolean => {
      if (seen.has(s)) return true;
      seen.add(s);
      const def = s._zod.def as unknown as { type: string; coerce?: boolean; checks?: { _zod: { def: { check: string } } }[] } & Record<string, unknown>;
      if (def.coerce === true || def.checks?.some((c) => c._zod.def.check === "overwrite")) return false;
      if (PASS_THROUGH.has(def.type)) return plain(def.innerType as z.ZodType);
      if (LEAVES.has(def.type)) return true;
      switch (def.type) {
        case "object":
          return Object.values(def.shape as Record<string, z.ZodType>).every(plain) && (def.catchall === undefined || plain(def.catchall as z.ZodType));
        case "array":
          return plain(def.element as z.ZodType);
        case "record":
          return plain(def.valueType as z.ZodType);
        case "union":
          return (def.options as z.ZodType[]).every(plain);
        case "lazy":
          return plain((def.getter as () => z.ZodType)());
        default:
          return false;
      }
    };
    known = plain(schema);
    fillsOnly.set(schema, known);
  }
  return known;
}

function hasDefault(schema: z.ZodType): boolean {
  let current = schema;
  for (let i = 0; i < 32; i++) {
    const def = current._zod.def as unknown as { type: string; innerType?: z.ZodType; getter?: () => z.ZodType };
    if (def.type === "default" || def.type === "prefault") return true;
    if (def.type === "lazy" && def.getter) current = def.getter();
    else if (PASS_THROUGH.has(def.type) && def.innerType) current = def.innerType;
    else return false;
  }
  return false;
}

/**
 * How `<secret>` in a document reads: as the declared value, as `keepSecrets` takes it in a service's answer, or
 * as the text it is, in recorded outputs (where it stands for a value never declared).
 */
export type Placeholder = "declared" | "literal";

/**
 * True when `canonical(create, wire)` in camelCase, `<secret>` read as `placeholder` says, is certainly
 * `declared`: one walk of both, no parse. It holds when the document seen through the create shape (nulls
 * dropped) is the declared wire form and no member with a default is missing, for a schema whose parse can only
 * fill defaults. False means only "normalize to know".
 */
export function readsAsDeclared(create: z.ZodType, wire: Props, declared: Props, placeholder: Placeholder = "declared"): boolean {
  return parseFillsOnly(create) && matches(create, wire, declared, placeholder);
}

function matches(schema: z.ZodType, live: unknown, declared: unknown, placeholder: Placeholder): boolean {
  if (live === SECRET_PLACEHOLDER && declared !== undefined && placeholder === "declared") return true;
  if (typeof live !== "object" || live === null) return live === declared; // most members: no schema needed
  const s = unwrap(schema);
  if (Array.isArray(live)) {
    if (!(s instanceof z.ZodArray) || !Array.isArray(declared) || live.length !== declared.length) return false;
    return live.every((v, i) => matches(s.def.element as z.ZodType, v, declared[i], placeholder));
  }
  if (!isObject(live) || !isObject(declared)) return false;
  if (s instanceof z.ZodObject) return matchesShape(s, live, declared, placeholder);
  if (s instanceof z.ZodRecord) {
    const valueType = s.def.valueType as z.ZodType;
    let count = 0;
    for (const [k, v] of Object.entries(live)) {
      if (v === null || v === undefined) continue;
      count++;
      if (!matches(valueType, v, declared[k], placeholder)) return false;
    }
    return count === definedCount(declared);
  }
  if (s instanceof z.ZodUnion) {
    // As `project` takes it: the option the value names, when that option accepts the projection.
    const option = chosenOption(s, live);
    const shape = option && unwrap(option);
    if (!option || !(shape instanceof z.ZodObject) || !matchesShape(shape, live, declared, placeholder)) return false;
    return option.safeParse(project(option, withoutNulls(live))).success;
  }
  return false;
}

/** Per object shape, once: each field's wire name, camelCase name, schema, and whether parsing fills a default. */
const shapeFields = new WeakMap<z.ZodObject, { field: string; camel: string; schema: z.ZodType; filled: boolean }[]>();

function matchesShape(shape: z.ZodObject, live: Props, declared: Props, placeholder: Placeholder): boolean {
  let fields = shapeFields.get(shape);
  if (!fields) {
    fields = Object.entries(shape.shape as Record<string, z.ZodType>).map(([field, schema]) => ({ field, camel: camelKey(field), schema, filled: hasDefault(schema) }));
    shapeFields.set(shape, fields);
  }
  let count = 0;
  for (const { field, camel, schema, filled } of fields) {
    const value = live[field];
    const want = declared[camel];
    if (value === null || value === undefined) {
      if (want !== undefined || filled) return false; // parse would fill a default the state lacks
      continue;
    }
    count++;
    if (want === undefined || !matches(schema, value, want, placeholder)) return false;
  }
  return count === definedCount(declared); // a declared member no field reads back
}

function definedCount(value: Props): number {
  let n = 0;
  for (const k of Object.keys(value)) if (value[k] !== undefined) n++;
  return n;
}
