// The TypeScript face of the API is camelCase; the wire is snake_case. Only keys that are fields of a
// schema's object shape are renamed: record keys (stream names, `ig/...` attributes) and operator keys
// (`_eq`) are data and pass through untouched. The schemas are the single source of which keys are fields.
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

type Direction = "toWire" | "fromWire";

/** Renames a value's field keys from camelCase to the wire's snake_case, guided by `schema`. */
export function toWire(schema: z.ZodType, value: unknown): unknown {
  return walk(schema, value, "toWire");
}

/** Renames a wire value's field keys to camelCase, guided by `schema`. */
export function fromWire(schema: z.ZodType, value: unknown): unknown {
  return walk(schema, value, "fromWire");
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

const camelFieldsCache = new WeakMap<Record<string, z.ZodType>, Map<string, string>>();

/** camelCase name -> wire name of a shape's fields, computed once per shape. */
function camelFields(shape: Record<string, z.ZodType>): Map<string, string> {
  let fields = camelFieldsCache.get(shape);
  if (!fields) {
    fields = new Map(Object.keys(shape).map((field) => [camelKey(field), field]));
    camelFieldsCache.set(shape, fields);
  }
  return fields;
}

function walk(schema: z.ZodType, value: unknown, direction: Direction): unknown {
  if (Array.isArray(value)) {
    const element = arrayElementSchema(schema);
    return element ? value.map((v) => walk(element, v, direction)) : value;
  }
  if (!isObject(value)) return value;
  const shapes = objectShapes(schema, value);
  if (shapes.length === 0) {
    const valueSchema = recordValueSchema(schema);
    if (!valueSchema) return value;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(valueSchema, v, direction)]));
  }
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    let wireKey: string | undefined;
    let child: z.ZodType | undefined;
    for (const shape of shapes) {
      wireKey = direction === "toWire" ? camelFields(shape).get(key) : Object.hasOwn(shape, key) ? key : undefined;
      child = wireKey === undefined ? undefined : shape[wireKey];
      if (child) break;
    }
    if (!child || wireKey === undefined) {
      out[key] = v; // not a field: left for validation to name
      continue;
    }
    out[direction === "toWire" ? wireKey : camelKey(wireKey)] = walk(child, v, direction);
  }
  return out;
}
