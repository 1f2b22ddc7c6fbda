// A resource's customTimeouts: given by the program as Go durations ("5m", "1h2m", "30s"), recorded in state and
// passed to the provider in seconds, as Pulumi's engine does.

/** Seconds per operation; absent when the program gave none. */
export type CustomTimeouts = Partial<Record<TimedOperation, number>>;

const TIMED_OPERATIONS = ["create", "update", "delete"] as const;
export type TimedOperation = (typeof TIMED_OPERATIONS)[number];

const UNIT_SECONDS: Record<string, number> = { ns: 1e-9, us: 1e-6, "µs": 1e-6, "μs": 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };
const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;

/** A Go duration in seconds; a clear error naming `field` when it is not one, or not above zero. */
export function durationSeconds(text: string, field: string): number {
  const problem = () => new Error(`${field}: expected a duration such as "30s", "5m" or "1h30m" (units ns, us, ms, s, m, h), got ${JSON.stringify(text)}`);
  if (text === "") throw problem();
  let seconds = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < text.length) {
    const at = PART.lastIndex;
    const match = PART.exec(text);
    if (!match || match.index !== at) throw problem();
    seconds += Number(match[1]) * UNIT_SECONDS[match[2]!]!;
  }
  if (!(seconds > 0)) throw new Error(`${field}: must be longer than zero, got ${JSON.stringify(text)}`);
  return seconds;
}

/** The timeouts a registration gives, in seconds; empty strings are timeouts not given. */
export function customTimeouts(given: Partial<Record<TimedOperation, string>> = {}): CustomTimeouts {
  const out: CustomTimeouts = {};
  for (const op of TIMED_OPERATIONS) {
    const text = given[op];
    if (text) out[op] = durationSeconds(text, `customTimeouts.${op}`);
  }
  return out;
}
