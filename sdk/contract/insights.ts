// Insights: one per account; aggregate queries over the account's data, within a daily allowance.
import { z } from "zod";
import { defineFamily } from "./family.ts";
import type { MemberDocs } from "./docs.ts";

/** Body of POST /insights (members not shown: an optional plan name). */
const shape = { plan: z.string().min(1).optional() };


/** Body of POST /insights/query: one aggregate query; groups below the aggregation threshold are never returned. */
export const insightsQuery = z.strictObject({
  query: z.string().refine((q) => q.trim().length > 0, { error: "must be a non-empty query" }),
});
export const insightsQueryResponse = z.object({ rows: z.array(z.record(z.string(), z.unknown())) }).loose();
export type InsightsQuery = z.input<typeof insightsQuery>;

/** Field docs of the Insights plan, by member path (see docs.ts). */
export const insightsDocs = {
  plan: "The Insights plan's name.",
  name: "The plan's name, when it has one.",
} as const satisfies MemberDocs;

export const insights = defineFamily({
  name: "insights",
  className: "Insights",
  summary: "The account's Insights plan (one per account; destroy forgets it).",
  collection: "insights",
  shape,
  answers: { name: z.string().nullish() },
  docs: insightsDocs,
  singleton: true,
  noLookup: "one per account, with no id or name to look up by: read it with `Insights.get`.",
  deletable: false,
  archivable: false,
});
