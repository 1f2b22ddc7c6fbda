// Market opportunity analysis: metrics of a scope's people around a selection of atlas locations.
import { z } from "zod";
import { defineFamily } from "./family.ts";
import { id, ids, name, oneOf } from "./fields.ts";
import type { MemberDocs } from "./docs.ts";

/** The atlas locations covered (shape not shown: selected like a scope's location payload). */
export const analysisLocations = z.strictObject({
  atlas_ids: ids.min(1, { error: "must name at least one atlas" }),
  location_reference_keys: z.array(z.string()).optional(),
});

const shape = {
  name,
  /** Whose people are measured (not shown; a scope). */
  scope_id: id.optional(),
  locations: analysisLocations.optional(),
  /** `residence` collapses people at one address into one entity, scored by its best member. */
  aggregate: oneOf(["person", "residence"]).default("person"),
};

const marketOpportunityAnalysisAnswers = { results: z.unknown().optional() };

/** Field docs of market opportunity analyses, by member path (see docs.ts). */
export const marketOpportunityAnalysisDocs = {
  scope_id: "Id of the scope whose people are measured.",
  locations: "The atlas locations covered.",
  "locations.atlas_ids": "Ids of the atlases; at least one.",
  "locations.location_reference_keys": "Reference keys of the locations covered, matched in every atlas named.",
  aggregate: "`person`: people are measured one by one; `residence`: people at one address count as one entity, scored by its best member.",
  results: "The analysis's metrics, once built.",
} as const satisfies MemberDocs;

export const marketOpportunityAnalysis = defineFamily({
  name: "market_opportunity_analysis",
  className: "MarketOpportunityAnalysis",
  summary: "A market opportunity analysis over atlas locations.",
  collection: "market_opportunity_analyses",
  shape,
  answers: marketOpportunityAnalysisAnswers,
  docs: marketOpportunityAnalysisDocs,
  references: [
    { path: "scope_id", collection: "scopes" },
    { path: "locations.atlas_ids[]", collection: "atlases" },
  ],
});
