// When a failed request may be sent again, and how long to wait before it.

export interface RetryOptions {
  /** Retries after the first attempt (default 3); 0 disables retrying. */
  maxRetries?: number;
  /** First backoff step in ms (default 500); doubles on each retry. */
  baseDelayMs?: number;
  /** Upper bound of one backoff step in ms (default 8000). */
  maxDelayMs?: number;
  /**
   * Longest `Retry-After` the client waits for, in ms (default 60000). A service asking for a longer pause
   * (a daily allowance used up) gets no retry: the error is thrown with its `retryAfterMs`.
   */
  maxRetryAfterMs?: number;
}

export type RetryPolicy = Required<RetryOptions>;

export const DEFAULT_RETRY: RetryPolicy = { maxRetries: 3, baseDelayMs: 500, maxDelayMs: 8000, maxRetryAfterMs: 60_000 };

export function retryPolicy(options: RetryOptions = {}): RetryPolicy {
  const policy = { ...DEFAULT_RETRY };
  for (const key of Object.keys(DEFAULT_RETRY) as (keyof RetryPolicy)[]) {
    const value = options[key];
    if (value === undefined) continue;
    if (!Number.isFinite(value) || value < 0) throw new RangeError(`retry.${key} must be a non-negative number, got ${String(value)}`);
    policy[key] = key === "maxRetries" ? Math.floor(value) : value;
  }
  return policy;
}

/** Statuses that say "try again later": the request had no effect. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

/** Jittered exponential backoff before retry number `retry` (1-based): between half and all of the step. */
export function backoffMs(policy: RetryPolicy, retry: number, random: () => number = Math.random): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return step / 2 + random() * (step / 2);
}

/** `Retry-After` as milliseconds from `now`: delay-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now: number = Date.now()): number | undefined {
  const header = Array.isArray(value) ? value[0] : value;
  if (header === undefined || header.trim() === "") return undefined;
  const trimmed = header.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  // An HTTP date names its day and month; bare numbers that are not delay-seconds ("-1") are no instruction.
  const date = /[a-z]/i.test(trimmed) ? Date.parse(trimmed) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Error codes of failures while connecting: the request was never written, so the service never saw it. */
const BEFORE_SEND_CODES: ReadonlySet<string> = new Set([
  "ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "EADDRNOTAVAIL", "UND_ERR_CONNECT_TIMEOUT",
]);

/** The system or undici error code of a transport failure, looking through `cause` and aggregate errors. */
export function errorCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return code;
    if (current instanceof AggregateError && current.errors[0] instanceof Error) current = current.errors[0];
    else current = current.cause;
  }
  return undefined;
}

export function failedBeforeSend(error: unknown): boolean {
  const code = errorCode(error);
  return code !== undefined && BEFORE_SEND_CODES.has(code);
}
