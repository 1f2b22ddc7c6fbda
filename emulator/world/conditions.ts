// The one evaluator of the service's comparison operators, shared by cohort stream / trait / attribute
// conditions, location property conditions and target filters.

export type Scalar = string | number | boolean | null;

export interface Operators {
  _eq?: Scalar;
  _in?: readonly Scalar[] | null;
  _nin?: readonly Scalar[] | null;
  _matches?: string | null;
  _gt?: number | null;
  _gte?: number | null;
  _lt?: number | null;
  _lte?: number | null;
  _null?: boolean | null;
  _nnull?: boolean | null;
  _on_or_before?: string | null;
  _on_or_after?: string | null;
  /** Union semantics: a person (or event) lacking the value still qualifies. */
  optional?: boolean | null;
}

export const OPERATORS = ["_eq", "_in", "_nin", "_matches", "_gt", "_gte", "_lt", "_lte", "_null", "_nnull", "_on_or_before", "_on_or_after"] as const;

const DAY_MS = 86_400_000;

/** Days since 1970-01-01 of a `YYYY-MM-DD` date (or of an ISO timestamp's calendar day). */
export function epochDay(date: string): number {
  const ms = Date.parse(`${date.slice(0, 10)}T00:00:00Z`);
  if (Number.isNaN(ms)) throw new Error(`"${date}" is not a date in YYYY-MM-DD form`);
  return Math.floor(ms / DAY_MS);
}

export function isoDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/**
 * Compiles a condition into a test of one value. Every operator present must hold; `null` values satisfy
 * only `_null: true`, `_nnull: false` and `_nin`, unless the condition is optional. Date values are epoch days (`_on_or_before` / `_on_or_after`
 * compare whole calendar days, both inclusive).
 */
export function compileCondition(condition: Operators): (value: Scalar) => boolean {
  const tests: ((value: Scalar) => boolean)[] = [];
  const c = condition;
  if (c._null != null) tests.push((v) => (v === null) === c._null);
  if (c._nnull != null) tests.push((v) => (v !== null) === c._nnull);
  if (c._eq !== undefined) {
    const want = c._eq;
    tests.push((v) => (want === null ? v === null : v !== null && sameValue(v, want)));
  }
  if (c._in != null) {
    const set = c._in;
    tests.push((v) => v !== null && set.some((w) => w !== null && sameValue(v, w)));
  }
  if (c._nin != null) {
    const set = c._nin;
    tests.push((v) => v === null || !set.some((w) => w !== null && sameValue(v, w)));
  }
  if (c._matches != null) {
    const re = new RegExp(c._matches);
    tests.push((v) => v !== null && re.test(String(v)));
  }
  const numeric: [number | null | undefined, (a: number, b: number) => boolean][] = [
    [c._gt, (a, b) => a > b], [c._gte, (a, b) => a >= b], [c._lt, (a, b) => a < b], [c._lte, (a, b) => a <= b],
  ];
  for (const [bound, cmp] of numeric) {
    if (bound != null) tests.push((v) => typeof v === "number" && !Number.isNaN(v) && cmp(v, bound));
  }
  if (c._on_or_after != null) {
    const day = epochDay(c._on_or_after);
    tests.push((v) => typeof v === "number" && v >= day);
  }
  if (c._on_or_before != null) {
    const day = epochDay(c._on_or_before);
    tests.push((v) => typeof v === "number" && v <= day);
  }
  const optional = c.optional === true;
  return (value) => (optional && value === null) || tests.every((t) => t(value));
}

function sameValue(value: Exclude<Scalar, null>, want: Exclude<Scalar, null>): boolean {
  if (typeof value === typeof want) return value === want;
  // Text and numbers meet on their text form ("3" matches 3), as values read from files do.
  return String(value) === String(want);
}
