// Injected faults, by method and path pattern: an error status (with Retry-After), added latency, or a
// connection reset before or after the request is processed; each with a probability and a count.
import { z } from "zod";
import { ERROR_CODES } from "./errors.ts";

export const faultRule = z.strictObject({
  /** HTTP method to match; any when omitted. */
  method: z.string().optional(),
  /** Path pattern without `/v1`: `*` matches within one segment, `**` across segments. */
  path: z.string().min(1),
  status: z.number().int().min(400).max(599).optional(),
  /** The error code of the body; the usual one for the status when omitted. */
  error: z.enum(ERROR_CODES).optional(),
  retry_after: z.number().nonnegative().optional(),
  latency_ms: z.number().int().nonnegative().max(60_000).optional(),
  reset: z.enum(["before", "after"]).optional(),
  probability: z.number().min(0).max(1).default(1),
  /** How many matching requests the fault applies to; unlimited when omitted. */
  count: z.number().int().positive().optional(),
});
export const faultRules = z.strictObject({ rules: z.array(faultRule) });
export type FaultRule = z.output<typeof faultRule>;

function patternToRegExp(pattern: string): RegExp {
  const escaped = pattern.replace(/^\/v1(?=\/)/, "").split(/(\*\*|\*)/).map((part) => {
    if (part === "**") return ".*";
    if (part === "*") return "[^/]*";
    return part.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
  }).join("");
  return new RegExp(`^${escaped}/?$`);
}

export class Faults {
  private rules: { rule: FaultRule; path: RegExp; remaining: number }[] = [];

  set(rules: FaultRule[]): void {
    this.rules = rules.map((rule) => ({ rule, path: patternToRegExp(rule.path), remaining: rule.count ?? Infinity }));
  }

  list(): (FaultRule & { remaining: number | null })[] {
    return this.rules.map((r) => ({ ...r.rule, remaining: Number.isFinite(r.remaining) ? r.remaining : null }));
  }

  /** The fault to apply to this request, if any (consuming one of its count). */
  match(method: string, path: string): FaultRule | undefined {
    for (const entry of this.rules) {
      if (entry.remaining <= 0) continue;
      if (entry.rule.method !== undefined && entry.rule.method.toUpperCase() !== method) continue;
      if (!entry.path.test(path)) continue;
      if (Math.random() >= entry.rule.probability) continue;
      entry.remaining -= 1;
      return entry.rule;
    }
    return undefined;
  }
}
