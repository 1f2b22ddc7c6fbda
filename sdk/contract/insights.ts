// Insights: one per account; aggregate queries over the account's data, within a daily allowance.
import { z } from "zod";
import { body, common, defineFamily, patchOf } from "./common.ts";

/** Body of POST /insights (members not shown: an optional plan name). */
const shape = { plan: z.string().min(1).optional() };

export const insightsCreate = body(shape);
export const insightsPatch = patchOf(shape);
export const insightsResponse = z.object({ ...common, name: z.string().nullish(), plan: z.string().nullish() }).loose();
export type InsightsResponse = z.output<typeof insightsResponse>;

/** Body of POST /insights/query: one aggregate query; groups below the aggregation threshold are never returned. */
export const insightsQuery = z.strictObject({
  query: z.string().refine((q) => q.trim().length > 0, { error: "must be a non-empty query" }),
});
export const insightsQueryResponse = z.object({ rows: z.array(z.record(z.string(), z.unknown())) }).loose();
export type InsightsQuery = z.input<typeof insightsQuery>;

export const insights = defineFamily({
  name: "insights",
  className: "Insights",
  collection: "insights",
  create: insightsCreate,
  patch: insightsPatch,
  response: insightsResponse,
  singleton: true,
  deletable: false,
  archivable: false,
});
