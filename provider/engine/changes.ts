// The values a step changes, leaf by leaf, as a plan shows them: program paths (`population.cohortIds[0]`), secrets
// masked and values not known until apply marked, so a plan can be reviewed and printed without leaking anything.
import { isDeepStrictEqual } from "node:util";
import { SECRET_TEXT } from "../protocol/known-secrets.ts";
import { isSecret, PROVIDER_KEY, revealed, UNKNOWN, type PropertyMap, type Value } from "../protocol/values.ts";

/** What a value the service decides at apply time reads as. */
const UNKNOWN_TEXT = "(known after apply)";

/** One changed leaf: absent `old` is an addition, absent `new` a removal. Values are masked. */
export interface LeafChange {
  path: string;
  old?: Value;
  new?: Value;
  /** The member forces the resource's replacement. */
  replaces?: true;
}

/** A masked value written out whole for people: `(none)` when absent, masks bare, the rest as JSON. */
export function shownValue(v: Value | undefined): string {
  if (v === undefined) return "(none)";
  if (v === UNKNOWN || v === UNKNOWN_TEXT) return UNKNOWN_TEXT;
  if (v === SECRET_TEXT) return SECRET_TEXT;
  return JSON.stringify(v, (_k, x: unknown) => (x === UNKNOWN ? UNKNOWN_TEXT : x));
}

function isObject(v: unknown): v is { [key: string]: Value } {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A value safe to show: secrets as `[secret]`, unknowns as `(known after apply)`. */
export function masked(v: Value): Value {
  if (isSecret(v)) return SECRET_TEXT;
  if (v === UNKNOWN) return UNKNOWN_TEXT;
  if (Array.isArray(v)) return v.map(masked);
  if (isObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, masked(x)]));
  return v;
}

function member(prefix: string, key: string): string {
  const name = /^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key);
  if (name !== key) return `${prefix}[${name}]`;
  return prefix ? `${prefix}.${key}` : key;
}

/** Whether the path names the member or something inside it (`a.b`, `a.b.c` and `a.b[0]` are within `a.b`). */
export function within(path: string, member: string): boolean {
  return path === member || path.startsWith(`${member}.`) || path.startsWith(`${member}[`);
}

/**
 * Whether a top-level member is the provider's own bookkeeping (`__provider`, a package's `__`-named members):
 * Pulumi's convention for inputs no program writes. None reaches a person.
 */
function internalMember(key: string): boolean {
  return key === PROVIDER_KEY || key.startsWith("__");
}

/**
 * The leaves that differ between two input maps, objects and arrays walked; secretness alone is no change.
 * `entering` also walks an object present on one side only (a create's inputs), so each member reads on its own.
 */
export function leafChanges(olds: PropertyMap, news: PropertyMap, replaces: readonly string[] = [], entering = false): LeafChange[] {
  const out: LeafChange[] = [];
  const walk = (a: Value | undefined, b: Value | undefined, path: string) => {
    if (a !== undefined && b !== undefined && isDeepStrictEqual(revealed(a), revealed(b))) return;
    const secret = isSecret(a) || isSecret(b);
    const objectOrNone = (v: Value | undefined) => isObject(v) || (entering && v === undefined);
    if (!secret && objectOrNone(a) && objectOrNone(b) && (isObject(a) || isObject(b))) {
      const [x, y] = [isObject(a) ? a : {}, isObject(b) ? b : {}];
      for (const k of [...new Set([...Object.keys(x), ...Object.keys(y)])]) walk(x[k], y[k], member(path, k));
      return;
    }
    if (!secret && Array.isArray(a) && Array.isArray(b)) {
      for (let i = 0; i < Math.max(a.length, b.length); i++) walk(a[i], b[i], `${path}[${i}]`);
      return;
    }
    // A value that stops being secret is shown masked on both sides: its old value was secret.
    const hide = (v: Value) => (secret ? SECRET_TEXT : masked(v));
    out.push({ path, ...(a === undefined ? {} : { old: hide(a) }), ...(b === undefined ? {} : { new: hide(b) }), ...(replaces.some((r) => within(path, r)) ? { replaces: true } : {}) });
  };
  for (const k of [...new Set([...Object.keys(olds), ...Object.keys(news)])].sort()) if (!internalMember(k)) walk(olds[k], news[k], member("", k));
  return out;
}

/** Every leaf of a map as an addition (a create) or a removal (a delete), for `--diff`. */
export function leafValues(props: PropertyMap, side: "old" | "new"): LeafChange[] {
  return side === "new" ? leafChanges({}, props, [], true) : leafChanges(props, {}, [], true);
}
