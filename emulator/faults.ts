// Injected faults, by method and path pattern: an error status (with Retry-After), added latency, or a
// connection reset before or after the request is processed; each with a probability and a count. With a
// seed, which requests a probability picks is the same on every run that sends the same requests.
import { z } from "zod";
import { ERROR_CODES } from "pulumi-audience/sdk/contract";
import { rng } from "./world/random.ts";

export const faultRule = z.strictObject({
  /** HTTP method to match; any when omitted. */
  method: z.string().optional(),
  /** Path pattern without `/v1`: `*` matches within one segment, `**` across segments. */
  path: z.string().min(1).max(1000).regex(/^[/*]/, { error: "must start with / (as /cohorts), or with a wildcard: a request's path does" }),
  status: z.number().int().min(400).max(599).optional(),
  /** The error code of the body; the usual one for the status when omitted. */
  error: z.enum(ERROR_CODES).optional(),
  retry_after: z.number().nonnegative().optional(),
  latency_ms: z.number().int().nonnegative().max(60_000).optional(),
  reset: z.enum(["before", "after"]).optional(),
  probability: z.number().min(0).max(1).default(1),
  /** How many matching requests the fault applies to; unlimited when omitted. */
  count: z.number().int().positive().optional(),
}).refine((rule) => rule.retry_after === undefined || rule.status !== undefined, { error: "retry_after is sent with an error status: give status too (429 or 503, say)", path: ["retry_after"] });
export const faultRules = z.strictObject({
  rules: z.array(faultRule),
  /** Seeds the draws of `probability`, so a run under random faults can be repeated; unseeded when omitted. */
  seed: z.number().int().optional(),
});
export type FaultRule = z.output<typeof faultRule>;

/** A compiled path pattern: literal characters, `*` (within a segment) and `**` (across segments). */
type PatternToken = string | typeof STAR | typeof GLOBSTAR;
const STAR = Symbol("*");
const GLOBSTAR = Symbol("**");

function compilePattern(pattern: string): PatternToken[] {
  const tokens: PatternToken[] = [];
  for (const part of pattern.replace(/^\/v1(?=\/)/, "").split(/(\*+)/)) {
    if (part === "") continue;
    // A run of stars is one wildcard: `**` (or longer) crosses segments.
    if (part.startsWith("*")) tokens.push(part.length > 1 ? GLOBSTAR : STAR);
    else tokens.push(...part);
  }
  return tokens;
}

/**
 * Whether `path` (with or without one trailing slash) matches the pattern. A table over the path's positions
 * rather than a regular expression, so no pattern a client sends can make matching take exponential time.
 */
function matchesPattern(tokens: readonly PatternToken[], path: string): boolean {
  const n = path.length;
  let reach = new Array<boolean>(n + 1).fill(false);
  reach[0] = true;
  for (const token of tokens) {
    const next = new Array<boolean>(n + 1).fill(false);
    for (let i = 0; i <= n; i++) {
      if (token === STAR) next[i] = reach[i]! || (i > 0 && next[i - 1]! && path[i - 1] !== "/");
      else if (token === GLOBSTAR) next[i] = reach[i]! || (i > 0 && next[i - 1]!);
      else next[i] = i > 0 && reach[i - 1]! && path[i - 1] === token;
    }
    reach = next;
  }
  return reach[n]! || (n > 0 && path[n - 1] === "/" && reach[n - 1]!);
}

export class Faults {
  private rules: { rule: FaultRule; path: PatternToken[]; remaining: number; applied: number }[] = [];
  private seed: number | undefined;
  private random: () => number = Math.random;

  set(rules: FaultRule[], seed?: number): void {
    this.rules = rules.map((rule) => ({ rule, path: compilePattern(rule.path), remaining: rule.count ?? Infinity, applied: 0 }));
    this.seed = seed;
    this.random = seed === undefined ? Math.random : rng(seed).float;
  }

  /** The rule set as set: each rule with how many more requests it may apply to and how many it applied to. */
  list(): { rules: (FaultRule & { remaining: number | null; applied: number })[]; seed?: number } {
    return {
      rules: this.rules.map((r) => ({ ...r.rule, remaining: Number.isFinite(r.remaining) ? r.remaining : null, applied: r.applied })),
      ...(this.seed !== undefined ? { seed: this.seed } : {}),
    };
  }

  /** The fault to apply to this request, if any (consuming one of its count). */
  match(method: string, path: string): FaultRule | undefined {
    for (const entry of this.rules) {
      if (entry.remaining <= 0) continue;
      if (entry.rule.method !== undefined && entry.rule.method.toUpperCase() !== method) continue;
      if (!matchesPattern(entry.path, path)) continue;
      if (this.random() >= entry.rule.probability) continue;
      entry.remaining -= 1;
      entry.applied += 1;
      return entry.rule;
    }
    return undefined;
  }
}
