// The TypeScript face of the API is camelCase; the wire is snake_case. Only keys that are fields of a
// schema's object shape are renamed: record keys (stream names, `ig/...` attributes) are data and pass through
// untouched; operator fields (`_eq`) keep their wire names in programs. The schemas are the single source of which
// keys are fields. The package schema names operators so every language's code generator can name them (`$eq`).
import { z } from "zod";
import { isObject } from "./merge-patch.ts";

export type CamelCase<S extends string> = S extends `_${string}`
  ? S
  : S extends `${infer Head}_${infer Tail}`
    ? `${Head}${Capitalize<CamelCase<Tail>>}`
    : S;

/** Deep camelCase view of a wire type: object fields renamed, record keys kept. */
export type Camel<T> = T extends readonly (infer E)[]
  ? Camel<E>[]
  : T extends object
    ? string extends keyof T
      ? { [key: string]: Camel<T[string & keyof T]> }
      : { [K in keyof T as K extends string ? CamelCase<K> : K]: Camel<T[K]> }
    : T;

const camelKeys = new Map<string, string>();

export function camelKey(key: string): string {
  if (key.startsWith("_")) return key;
  let camel = camelKeys.get(key);
  if (camel === undefined) {
    camel = key.replace(/(?<=[A-Za-z0-9])_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
    // Field names are few; data keys (record keys) are not remembered past a bound.
    if (camelKeys.size < 10_000) camelKeys.set(key, camel);
  }
  return camel;
}

/** A way of naming fields: the name a field (by its wire name) is given. */
export type Naming = (field: string) => string;

/** The wire's own names. */
export const wireName: Naming = (field) => field;

/**
 * A field's name in the package schema: its camelCase name, but `$` and the camelCase of its words for an operator
 * (`_gte` -> `$gte`, `_on_or_after` -> `$onOrAfter`). Go's code generator drops a leading `$` and capitalizes
 * (`Gte`), Python's turns `$` into `_` and snake-cases (`_on_or_after`, the program's name), as they do for
 * pulumi-kubernetes' `$ref`; a leading `_` would make Go's field unexported.
 */
export function schemaName(field: string): string {
  return field.startsWith("_") ? `$${camelKey(field.replace(/^_+/, ""))}` : camelKey(field);
}

/** How `renameFields` names fields: a key is a field if one of `from` names it so; it gets the name `to` gives. */
export interface Renaming {
  from: readonly Naming[];
  to: Naming;
  /** A value wrapped by the caller's markers (a Pulumi secret): what it holds, and how to wrap it again. */
  wrapped?: (value: Record<string, unknown>) => { inner: unknown; wrap(inner: unknown): unknown } | undefined;
  /** Told of each field found and the naming its key had. */
  found?: (field: string, naming: Naming) => void;
}

/** Renames a value's field keys, guided by `schema`; keys that are no field are left as they are. */
export function renameFields(schema: z.ZodType, value: unknown, renaming: Renaming): unknown {
  return walk(schema, value, renaming);
}

const TO_WIRE: Renaming = { from: [camelKey], to: wireName };
const FROM_WIRE: Renaming = { from: [wireName], to: camelKey };

/** Renames a value's field keys from camelCase to the wire's snake_case, guided by `schema`. */
export function toWire(schema: z.ZodType, value: unknown): unknown {
  return walk(schema, value, TO_WIRE);
}

/** Renames a wire value's field keys to camelCase, guided by `schema`. */
export function fromWire(schema: z.ZodType, value: unknown): unknown {
  return walk(schema, value, FROM_WIRE);
}

const unwrapped = new WeakMap<z.ZodType, z.ZodType>();

/** Strips wrappers (optional, nullable, default, pipe, lazy...) down to the structural schema. */
export function unwrap(schema: z.ZodType): z.ZodType {
  let found = unwrapped.get(schema);
  if (found === undefined) {
    found = unwrapOnce(schema);
    unwrapped.set(schema, found);
  }
  return found;
}

function unwrapOnce(schema: z.ZodType): z.ZodType {
  let current: z.ZodType = schema;
  for (let i = 0; i < 32; i++) {
    if (current instanceof z.ZodOptional || current instanceof z.ZodNullable || current instanceof z.ZodDefault
      || current instanceof z.ZodPrefault || current instanceof z.ZodReadonly || current instanceof z.ZodNonOptional
      || current instanceof z.ZodCatch) {
      current = current.def.innerType as z.ZodType;
    } else if (current instanceof z.ZodPipe) {
      current = (current.def.in instanceof z.ZodTransform ? current.def.out : current.def.in) as z.ZodType;
    } else if (current instanceof z.ZodLazy) {
      current = current.def.getter() as z.ZodType;
    } else {
      return current;
    }
  }
  return current;
}

/** The object shapes a value of `schema` may take, most specific first. */
function objectShapes(schema: z.ZodType, value: Record<string, unknown>): Record<string, z.ZodType>[] {
  const s = unwrap(schema);
  if (s instanceof z.ZodObject) return [s.shape as Record<string, z.ZodType>];
  if (s instanceof z.ZodIntersection) {
    return [...objectShapes(s.def.left as z.ZodType, value), ...objectShapes(s.def.right as z.ZodType, value)];
  }
  if (s instanceof z.ZodUnion) {
    const options = s.def.options as z.ZodType[];
    const discriminator = (s.def as { discriminator?: string }).discriminator;
    if (discriminator !== undefined && discriminator in value) {
      const chosen = options.filter((o) => {
        const shape = objectShapes(o, value)[0];
        const field = shape?.[discriminator];
        const values = field ? (unwrap(field)._zod as { values?: Set<unknown> }).values : undefined;
        return values?.has(value[discriminator]) ?? false;
      });
      if (chosen.length > 0) return chosen.flatMap((o) => objectShapes(o, value));
    }
    return options.flatMap((o) => objectShapes(o, value));
  }
  return [];
}

/** The schema `inner` finds in `schema`, looking through the options of unions (first match wins). */
function findInUnion(schema: z.ZodType, inner: (s: z.ZodType) => z.ZodType | undefined): z.ZodType | undefined {
  const s = unwrap(schema);
  const found = inner(s);
  if (found || !(s instanceof z.ZodUnion)) return found;
  for (const o of s.def.options as z.ZodType[]) {
    const f = findInUnion(o, inner);
    if (f) return f;
  }
  return undefined;
}

const recordValueSchema = (schema: z.ZodType) =>
  findInUnion(schema, (s) => (s instanceof z.ZodRecord ? (s.def.valueType as z.ZodType) : undefined));

const arrayElementSchema = (schema: z.ZodType) =>
  findInUnion(schema, (s) => (s instanceof z.ZodArray ? (s.def.element as z.ZodType) : undefined));

// Keyed by the naming function itself: namings are few and long-lived (`camelKey`, `schemaName`, `wireName`).
const namedFieldsCache = new Map<Naming, WeakMap<Record<string, z.ZodType>, Map<string, string>>>();

/** The wire name of the shape's field that `naming` names `key`, from a table computed once per shape and naming. */
function fieldNamed(shape: Record<string, z.ZodType>, naming: Naming, key: string): string | undefined {
  if (naming === wireName) return Object.hasOwn(shape, key) ? key : undefined;
  let byShape = namedFieldsCache.get(naming);
  if (!byShape) namedFieldsCache.set(naming, (byShape = new WeakMap()));
  let fields = byShape.get(shape);
  if (!fields) {
    fields = new Map(Object.keys(shape).map((field) => [naming(field), field]));
    byShape.set(shape, fields);
  }
  return fields.get(key);
}

function walk(schema: z.ZodType, value: unknown, renaming: Renaming): unknown {
  if (Array.isArray(value)) {
    const element = arrayElementSchema(schema);
    return element ? value.map((v) => walk(element, v, renaming)) : value;
  }
  if (!isObject(value)) return value;
  const wrapper = renaming.wrapped?.(value);
  if (wrapper) return wrapper.wrap(walk(schema, wrapper.inner, renaming));
  const shapes = objectShapes(schema, value);
  if (shapes.length === 0) {
    const valueSchema = recordValueSchema(schema);
    if (!valueSchema) return value;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(valueSchema, v, renaming)]));
  }
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    let field: string | undefined;
    let child: z.ZodType | undefined;
    let naming: Naming | undefined;
    search: for (const shape of shapes) {
      for (const by of renaming.from) {
        const named = fieldNamed(shape, by, key);
        const member = named === undefined ? undefined : shape[named];
        if (member) {
          field = named;
          child = member;
          naming = by;
          break search;
        }
      }
    }
    if (!child || field === undefined || naming === undefined) {
      out[key] = v; // not a field: left for validation to name
      continue;
    }
    renaming.found?.(field, naming);
    out[renaming.to(field)] = walk(child, v, renaming);
  }
  return out;
}
