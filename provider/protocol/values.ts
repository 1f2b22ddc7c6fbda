// Property values as they travel between program, engine and provider: JSON with Pulumi's special markers.
import { isDeepStrictEqual } from "node:util";
import { PROVIDER_KEY, SECRET_SIG, SIG_KEY, UNKNOWN } from "./markers.ts";

export { PROVIDER_KEY, SECRET_SIG, SIG_KEY, UNKNOWN } from "./markers.ts";

export type Value = null | boolean | number | string | Value[] | { [key: string]: Value };
export type PropertyMap = Record<string, Value>;

type SecretValue = { [SIG_KEY]: typeof SECRET_SIG; value: Value };

function isObject(v: unknown): v is { [key: string]: Value } {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function isSecret(v: unknown): v is SecretValue {
  return isObject(v) && v[SIG_KEY] === SECRET_SIG && "value" in v;
}

export function makeSecret(v: Value): Value {
  return isSecret(v) ? v : { [SIG_KEY]: SECRET_SIG, value: v };
}

/** The value with every secret marker removed, as handed to a provider that does not accept secrets. */
export function revealed(v: Value): Value {
  if (isSecret(v)) return revealed(v.value);
  if (Array.isArray(v)) return v.map(revealed);
  if (isObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, revealed(x)]));
  return v;
}

/** What a secret reads as wherever it is not to be revealed. */
export const SECRET_MASK = "[secret]";

/** The value with every secret as `[secret]`, as people and --json readers see it without --show-secrets. */
export function masked(v: Value): Value {
  if (isSecret(v)) return SECRET_MASK;
  if (Array.isArray(v)) return v.map(masked);
  if (isObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, masked(x)]));
  return v;
}

/** Secrets as `pulumi stack export --show-secrets` writes them: the marker with the value's JSON as `plaintext`. */
export function plaintextSecrets(v: Value): Value {
  if (isSecret(v)) return { [SIG_KEY]: SECRET_SIG, plaintext: JSON.stringify(revealed(v.value)) };
  if (Array.isArray(v)) return v.map(plaintextSecrets);
  if (isObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plaintextSecrets(x)]));
  return v;
}

export function revealedMap(m: PropertyMap): PropertyMap {
  return revealed(m) as PropertyMap;
}

/** Sets an own member, `__proto__` included (which an assignment would take as the object's prototype). */
export function setMember<T>(object: { [key: string]: T }, key: string, value: T): void {
  if (key === "__proto__") Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  else object[key] = value;
}

/** Values JSON leaves out of an object (and writes null for in an array). */
const JSON_SKIPS = (v: unknown): boolean => v === undefined || typeof v === "function" || typeof v === "symbol";

/**
 * The value as JSON carries it, secrets revealed: what `JSON.parse(JSON.stringify(revealed(v)))` gives (a fresh copy;
 * members that are undefined left out, and in arrays null; numbers that are not finite null), in one walk.
 */
export function revealedJson(v: unknown): Value {
  if (typeof v === "number") return Number.isFinite(v) ? v + 0 : null; // + 0: -0 is written 0
  if (typeof v !== "object" || v === null) return v as Value;
  if (isSecret(v)) return revealedJson(v.value);
  if (Array.isArray(v)) return v.map((x) => (JSON_SKIPS(x) ? null : revealedJson(x)));
  const out: { [key: string]: Value } = {};
  for (const key of Object.keys(v)) {
    const x = (v as Record<string, unknown>)[key];
    if (!JSON_SKIPS(x)) setMember(out, key, revealedJson(x));
  }
  return out;
}

/** Whether any part of the value is not known yet (a preview's unknown, or an output of a resource that did not run). */
export function containsUnknown(v: Value): boolean {
  if (v === UNKNOWN) return true;
  if (isSecret(v)) return containsUnknown(v.value);
  if (Array.isArray(v)) return v.some(containsUnknown);
  if (isObject(v)) return Object.values(v).some(containsUnknown);
  return false;
}

export function containsSecret(v: Value): boolean {
  if (isSecret(v)) return true;
  if (Array.isArray(v)) return v.some(containsSecret);
  if (isObject(v)) return Object.values(v).some(containsSecret);
  return false;
}

/**
 * Copies secretness from inputs to outputs as Pulumi's engine does for providers that do not accept secrets:
 * objects present on both sides are walked key by key; any other output whose input held a secret becomes secret.
 */
export function annotateSecrets(outs: PropertyMap, ins: PropertyMap): PropertyMap {
  const result: PropertyMap = {};
  for (const [key, out] of Object.entries(outs)) {
    const input = ins[key];
    if (input === undefined) result[key] = out;
    else if (isObject(out) && !isSecret(out) && isObject(input) && !isSecret(input)) result[key] = annotateSecrets(out, input);
    else result[key] = containsSecret(input) ? makeSecret(out) : out;
  }
  return result;
}

/** Marks the members at `paths` secret: top-level names, or dotted paths into objects (`options.password`). */
export function markSecret(outs: PropertyMap, paths: readonly string[]): PropertyMap {
  const result = { ...outs };
  for (const path of paths) {
    const dot = path.indexOf(".");
    const key = dot < 0 ? path : path.slice(0, dot);
    if (!(key in result)) continue;
    const value = result[key] as Value;
    if (dot < 0 || isSecret(value)) result[key] = makeSecret(value);
    else if (isObject(value)) result[key] = markSecret(value, [path.slice(dot + 1)]);
  }
  return result;
}

/** Paths of the properties whose values differ, nested objects walked (`options.host`); secretness alone is no change. */
export function changedKeys(olds: PropertyMap, news: PropertyMap): string[] {
  const walk = (a: Value | undefined, b: Value | undefined, prefix: string): string[] => {
    const ra = a === undefined ? undefined : revealed(a);
    const rb = b === undefined ? undefined : revealed(b);
    if (isDeepStrictEqual(ra, rb)) return [];
    if (isObject(ra) && isObject(rb)) {
      return [...new Set([...Object.keys(ra), ...Object.keys(rb)])].flatMap((k) => walk(ra[k], rb[k], `${prefix}${k}.`));
    }
    return [prefix.slice(0, -1)];
  };
  const keys = [...new Set([...Object.keys(olds), ...Object.keys(news)])].filter((k) => k !== PROVIDER_KEY);
  return keys.flatMap((k) => walk(olds[k], news[k], `${k}.`)).sort();
}

export function sameValues(a: PropertyMap, b: PropertyMap): boolean {
  return isDeepStrictEqual(revealed(a), revealed(b));
}

/** Splits a property path such as `a.b[0]["c.d"]` into its keys. */
export function parsePath(path: string): (string | number)[] {
  const parts: (string | number)[] = [];
  const re = /([^.[\]]+)|\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]/g;
  let last = 0;
  for (let m = re.exec(path); m; m = re.exec(path)) {
    const gap = path.slice(last, m.index);
    if (gap !== "" && gap !== ".") throw new Error(`ignoreChanges: cannot parse property path "${path}"`);
    parts.push(m[1] ?? (m[2] !== undefined ? Number(m[2]) : JSON.parse(`"${m[3]}"`)));
    last = re.lastIndex;
  }
  if (last !== path.length || parts.length === 0) throw new Error(`ignoreChanges: cannot parse property path "${path}"`);
  return parts;
}

function getPath(v: Value | undefined, path: (string | number)[]): Value | undefined {
  let cur = v;
  for (const part of path) {
    if (isSecret(cur)) cur = cur.value;
    if (typeof part === "number") cur = Array.isArray(cur) ? cur[part] : undefined;
    else cur = isObject(cur) ? cur[part] : undefined;
    if (cur === undefined) return undefined;
  }
  return cur;
}

function setPath(target: PropertyMap, path: (string | number)[], value: Value | undefined): PropertyMap {
  const copy: Value = structuredClone(target);
  let cur: Value = copy;
  for (const part of path.slice(0, -1)) {
    let next: Value | undefined = typeof part === "number" ? (Array.isArray(cur) ? cur[part] : undefined) : isObject(cur) ? cur[part] : undefined;
    if (isSecret(next)) next = next.value;
    // The new inputs lack the enclosing value: there is nothing to put the old one back into.
    if (next === undefined || next === null || typeof next !== "object") return target;
    cur = next;
  }
  const leaf = path[path.length - 1];
  if (typeof leaf === "number" && Array.isArray(cur)) {
    if (value === undefined) cur.splice(leaf, 1);
    else cur[leaf] = value;
  } else if (typeof leaf === "string" && isObject(cur)) {
    if (value === undefined) delete cur[leaf];
    else cur[leaf] = value;
  }
  return copy as PropertyMap;
}

/** New inputs with the ignored paths put back to their old values, as `ignoreChanges` asks. */
export function applyIgnoreChanges(olds: PropertyMap, news: PropertyMap, paths: readonly string[]): PropertyMap {
  let result = news;
  for (const path of paths) {
    const parts = parsePath(path);
    result = setPath(result, parts, getPath(olds, parts));
  }
  return result;
}
