// JSON from clients, parsed with limits: stored documents are copied and patched recursively, so nesting
// deeper than any real body would overflow the stack later, and `__proto__` would pollute merged objects. And the
// copy of stored records those limits keep safe.

/** Deeper than any body of the spec (GeoJSON multipolygons nest about six levels). */
export const MAX_JSON_DEPTH = 64;

/** Parses `source`, throwing an Error whose message says what is wrong for bodies nested too deep or naming `__proto__`. */
export function parseClientJson(source: string): unknown {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > MAX_JSON_DEPTH) throw new Error(`objects and arrays nest at most ${MAX_JSON_DEPTH} levels deep`);
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  // A member can be named __proto__ only where the text says so, literally or through \u escapes; the reviver
  // that looks for it makes parsing several times slower, so it runs only then.
  if (!source.includes("__proto__") && !source.includes("\\u")) return JSON.parse(source);
  return JSON.parse(source, (key, value: unknown) => {
    if (key === "__proto__") throw new Error("the member name __proto__ is not allowed");
    return value;
  });
}

/**
 * A deep copy of a stored record. Records are JSON values (they are persisted as JSON), which a plain walk copies
 * several times faster than structuredClone; anything else (never stored today) is left to structuredClone.
 */
export function copyJson<T>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map(copyJson) as T;
  if (Object.getPrototypeOf(value) !== Object.prototype) return structuredClone(value);
  // A spread copies an object's members at once, into an object of the same shape; then what they hold is copied.
  const out = { ...value } as Record<string, unknown>;
  for (const key of Object.keys(out)) {
    const member = out[key];
    if (typeof member === "object" && member !== null) out[key] = copyJson(member);
  }
  return out as T;
}
