// Field types the families' members are built of: ids, names, dates, enums, and the helpers their rules use.
import { z } from "zod";

/** An error message for a missing, null or mistyped member. */
export function expected(what: string) {
  return (iss: { input?: unknown }) =>
    iss.input === undefined ? "is required" : iss.input === null ? "is required and cannot be null" : `must be ${what}`;
}

export const id = z.guid({ error: expected("a uuid") });

/**
 * The longest name the service takes (of a resource, a column, a stream, a trait, a property). The spec gives
 * none; 256 characters holds any real name and keeps a name from being a payload.
 */
export const MAX_NAME_LENGTH = 256;
/** Lone surrogates (text no UTF-8 can carry) and control characters (NUL, line breaks, tabs) are never part of a name. */
const LONE_SURROGATE = /\p{Cs}/u;
function hasControl(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

/** A name-like string: non-blank (`blank` says so otherwise), at most MAX_NAME_LENGTH characters of printable text. */
export function nameText(blank: string, what = "a string") {
  return z.string({ error: expected(what) })
    .refine((s) => s.trim().length > 0, { error: blank })
    .max(MAX_NAME_LENGTH, { error: `must be at most ${MAX_NAME_LENGTH} characters` })
    .refine((s) => !LONE_SURROGATE.test(s), { error: "must be valid Unicode text (it holds a lone surrogate)" })
    .refine((s) => !hasControl(s), { error: "must not hold control characters (NUL, line breaks, tabs)" });
}

export const name = nameText("must be a non-empty string");
/** A `_matches` pattern: refused up front when it cannot compile, rather than failing a build later. */
export const matchPattern = z.string().refine((source) => {
  try {
    new RegExp(source);
    return true;
  } catch {
    return false;
  }
}, { error: "must be a valid regular expression" });
/** A calendar date: the form alone would let `2024-13-45` through, and the build reading it would fail later. */
export const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, { error: "must be a date in YYYY-MM-DD form", abort: true })
  .refine(isCalendarDate, { error: "must be a real calendar date (month 01-12, a day the month has)" });
/** A point in time a client writes (an approval): ISO 8601 with a calendar date, a real time and an offset. */
export const instant = z.iso.datetime({ offset: true, error: "must be an ISO 8601 time with a real calendar date and an offset, e.g. 2024-05-01T12:00:00Z" });

function isCalendarDate(value: string): boolean {
  const [year, month, day] = value.split("-").map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return year >= 1 && date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}
export const timestamp = z.string();
export const ids = z.array(id);

/** A column of a source table: non-blank. */
export const column = nameText("must name a column (non-blank)", "a column name");

/** An enum whose error lists what is allowed. */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, { error: `must be one of ${values.join(", ")}` });
}

/** A member a variant of a union does not take; `why` says where it belongs. */
export function notAllowed(why: string) {
  return z.never({ error: why }).optional();
}

/** Adds an issue at a path below the checked value (inside `.check`). */
export function issue(ctx: { value: unknown; issues: z.core.$ZodRawIssue[] }, path: PropertyKey[], message: string): void {
  ctx.issues.push({ code: "custom", input: ctx.value, path, message });
}

/**
 * A rule across members of an object, run whenever the members it reads are well-formed, so that one answer
 * names every offending member; `reads` lists those members.
 */
export function crossRule<T>(reads: readonly (keyof T & string)[], rule: (value: T, add: (path: PropertyKey[], message: string) => void) => void) {
  return z.superRefine<T>((value, ctx) => {
    rule(value, (path, message) => ctx.addIssue({ code: "custom", path, message, input: value }));
  }, {
    when: (payload) => !payload.issues.some((i) => {
      const path = i.path ?? [];
      return (path.length === 0 && i.code === "invalid_type") || (reads as readonly PropertyKey[]).includes(path[0] ?? "");
    }),
  });
}
