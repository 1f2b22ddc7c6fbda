// RFC 7396 JSON merge patch: what PATCH bodies mean on this service.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A JSON object: not null, not an array. */
export function isObject<T = unknown>(value: unknown): value is Record<string, T> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Deep equality of JSON values; object key order is ignored. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (isObject(a) && isObject(b)) {
    // Members left undefined count as absent. Written as loops: drift compares every resource of a fleet.
    let defined = 0;
    for (const k of Object.keys(a)) {
      if (a[k] === undefined) continue;
      defined++;
      if (!jsonEqual(a[k], b[k])) return false;
    }
    for (const k of Object.keys(b)) if (b[k] !== undefined) defined--;
    return defined === 0;
  }
  return false;
}

/**
 * The minimal merge patch that turns `from` into `to`: removed members become `null`, changed objects are
 * patched member by member, arrays and scalars are replaced whole. Returns `undefined` when nothing changed.
 */
export function mergePatch(from: unknown, to: unknown): unknown {
  if (jsonEqual(from, to)) return undefined;
  if (!isObject(from) || !isObject(to)) return to === undefined ? null : to;
  const patch: Record<string, unknown> = {};
  for (const key of Object.keys(from)) {
    if (from[key] !== undefined && to[key] === undefined) patch[key] = null;
  }
  for (const [key, value] of Object.entries(to)) {
    if (value === undefined) continue;
    const member = key in from && from[key] !== undefined ? mergePatch(from[key], value) : value;
    if (member !== undefined) patch[key] = member;
  }
  return patch;
}

/** Applies an RFC 7396 merge patch to a document, returning a new document. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const result: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = applyMergePatch(result[key], value);
  }
  return result;
}
