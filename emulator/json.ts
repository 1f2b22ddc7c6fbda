// JSON from clients, parsed with limits: stored documents are cloned and patched recursively, so nesting
// deeper than any real body would overflow the stack later, and `__proto__` would pollute merged objects.

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
  return JSON.parse(source, (key, value: unknown) => {
    if (key === "__proto__") throw new Error("the member name __proto__ is not allowed");
    return value;
  });
}
