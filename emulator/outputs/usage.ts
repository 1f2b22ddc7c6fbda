// What a delivery or a lookup adds to an account's usage. Preview scopes are not billed; lift columns are
// never billed; probability and percentile count as separate prediction columns. The deployment itself
// (batch_deployments) is counted by the emulator core when a target build finishes.
import { billedColumns } from "./names.ts";
import type { DeliveryCount } from "./csv.ts";

export const USAGE_METRICS = ["batch_deployments", "lookup_api_calls", "predictive_data", "people_with_nearest_location"] as const;
export type UsageMetric = (typeof USAGE_METRICS)[number];
export type UsageIncrement = [UsageMetric, number];

/** Predictions billed for one batch delivery of `columns` (a target build). */
export function deliveryUsage(columns: readonly string[], delivered: DeliveryCount, scopePreview: boolean, nearest: boolean): UsageIncrement[] {
  if (scopePreview) return [];
  const out: UsageIncrement[] = [["predictive_data", delivered.rows * billedColumns(columns).length]];
  if (nearest && delivered.located > 0) out.push(["people_with_nearest_location", delivered.located]);
  return out;
}

/** Usage of one lookup: the call, and the predictions it answered with. */
export function lookupUsage(answeredColumns: readonly string[], scopePreview: boolean): UsageIncrement[] {
  const out: UsageIncrement[] = [["lookup_api_calls", 1]];
  if (!scopePreview) out.push(["predictive_data", billedColumns(answeredColumns).length]);
  return out;
}
