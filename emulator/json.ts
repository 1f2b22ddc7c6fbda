// JSON from clients, parsed with limits: stored documents are copied and patched recursively, so nesting
// deeper than any real body would overflow the stack later, and `__proto__` would pollute merged objects. And the
// copy of stored records those limits keep safe.

/** Deeper than any body of the spec (GeoJSON multipolygons nest about six levels). */
export const MAX_JSON_DEPTH = 64;

/** A body refused for its text; `path` names the member (`payload.name`, `ids[0]`) when one can be told. */
export class ClientTextError extends Error {
  readonly path: string | undefined;

  constructor(message: string, path?: string) {
    super(message);
    this.path = path;
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true });
const lenientUtf8 = new TextDecoder("utf-8");

/**
 * A body's bytes as text. Bytes that are not UTF-8 are refused rather than stored as U+FFFD; the member holding
 * them is named when the rest of the body parses.
 */
export function decodeClientText(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    let path: string | undefined;
    try {
      path = findText(JSON.parse(lenientUtf8.decode(bytes)), (s) => s.includes("\uFFFD"));
    } catch {
      // not JSON either: the body as a whole is named
    }
    throw new ClientTextError("is not valid UTF-8 text", path);
  }
}

/** Text no member may hold: a lone surrogate (no UTF-8 can carry it) or NUL (C strings and files end there). */
const unstorable = (s: string) => /\p{Cs}/u.test(s) || s.includes("\u0000");

/** The path of the first member name or string value `bad` holds true for, in the form validation errors use. */
function findText(value: unknown, bad: (s: string) => boolean, path = ""): string | undefined {
  if (typeof value === "string") return bad(value) ? path : undefined;
  if (typeof value !== "object" || value === null) return undefined;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = findText(item, bad, `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const [key, member] of Object.entries(value)) {
    const at = path === "" ? key : `${path}.${key}`;
    if (bad(key)) return at;
    const found = findText(member, bad, at);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Parses `source`, throwing an Error whose message says what is wrong for bodies nested too deep or naming
 * `__proto__`, and a ClientTextError naming the member that holds a lone surrogate or NUL.
 */
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
  // Lone surrogates and NUL, too, can only be written as \u escapes.
  if (!source.includes("__proto__") && !source.includes("\\u")) return JSON.parse(source);
  const value: unknown = JSON.parse(source, (key, member: unknown) => {
    if (key === "__proto__") throw new Error("the member name __proto__ is not allowed");
    return member;
  });
  const path = findText(value, unstorable);
  if (path !== undefined) throw new ClientTextError("must be text without NUL characters or lone surrogates (\\u0000, \\ud800-\\udfff alone)", path);
  return value;
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
