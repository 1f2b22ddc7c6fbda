// Market opportunity analysis: metrics of a scope's people around a selection of atlas locations.
import { z } from "zod";
import { body, defineFamily, id, ids, name, oneOf, patchOf, responseOf, type MergePatchOf } from "./common.ts";

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

export const marketOpportunityAnalysisCreate = body(shape);
export const marketOpportunityAnalysisPatch = patchOf(shape);
export const marketOpportunityAnalysisResponse = responseOf(shape, { results: z.unknown().optional() });
export type MarketOpportunityAnalysisCreate = z.input<typeof marketOpportunityAnalysisCreate>;
export type MarketOpportunityAnalysisPatch = MergePatchOf<MarketOpportunityAnalysisCreate>;
export type MarketOpportunityAnalysisResponse = z.output<typeof marketOpportunityAnalysisResponse>;

export const marketOpportunityAnalysis = defineFamily({
  name: "market_opportunity_analysis",
  className: "MarketOpportunityAnalysis",
  collection: "market_opportunity_analyses",
  create: marketOpportunityAnalysisCreate,
  patch: marketOpportunityAnalysisPatch,
  response: marketOpportunityAnalysisResponse,
  references: [
    { path: "scope_id", collection: "scopes" },
    { path: "locations.atlas_ids[]", collection: "atlases" },
  ],
});
