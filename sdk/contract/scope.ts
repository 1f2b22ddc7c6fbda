// Scope (pipeline): a population of cohorts joined to a payload of predictions.
import { z } from "zod";
import { defineFamily } from "./family.ts";
import { ids, isoDate, name } from "./fields.ts";
import { locationPropertyCondition } from "./location.ts";
import { docsUnder, type MemberDocs } from "./docs.ts";
import { locationPropertyConditionDocs } from "./location.ts";

export const locationPayload = z.strictObject({
  /** Atlases whose locations are selected. */
  atlas_ids: ids.optional(),
  /** Reference keys matched in every selected atlas. */
  location_reference_keys: z.array(z.string()).optional(),
  /** `nearest` publishes one location per person, `all` index-aligned arrays of every match. */
  selection: z.enum(["nearest", "all"]).default("nearest"),
  /** Lower distance bound in meters. */
  min_distance: z.number().nonnegative().nullish(),
  /** Upper distance bound in meters; null removes the bound. */
  max_distance: z.number().nonnegative().nullish(),
  distance_output_units: z.enum(["meters", "miles"]).default("meters"),
  conditions: z.array(locationPropertyCondition).nullish(),
}).check((ctx) => {
  const { min_distance: min, max_distance: max } = ctx.value;
  if (min != null && max != null && min > max) {
    ctx.issues.push({ code: "custom", input: ctx.value, path: ["min_distance"], message: "must not exceed max_distance" });
  }
});

const population = z.strictObject({
  /** Cohorts unioned into the population. */
  cohort_ids: ids.min(1, { error: "must name at least one cohort" }).optional(),
  /** The same meaning as cohort_ids (tutorial flow). */
  include: ids.optional(),
  /** Cohorts whose addresses are suppressed (household-level suppression). */
  exclusion_address_level_cohort_ids: ids.optional(),
  exclusion_cohort_ids: ids.optional(),
}).check((ctx) => {
  // An empty cohort_ids is refused as such already.
  if (ctx.value.cohort_ids === undefined && !ctx.value.include?.length) {
    ctx.issues.push({ code: "custom", input: ctx.value, path: ["cohort_ids"], message: "is required: name one or more cohorts" });
  }
});

const payload = z.strictObject({
  outcome_ids: ids.optional(),
  persona_set_ids: ids.optional(),
  recommender_ids: ids.optional(),
  forecast_ids: ids.optional(),
  cohort_ids: ids.optional(),
  /** Private beta: raw attribute data in the scope. */
  attributes: z.array(z.unknown()).optional(),
  /** Private beta: cohort membership flags. */
  cohorts: z.array(z.unknown()).optional(),
  explainability: z.boolean().optional(),
  max_attribute_observation_date: isoDate.optional(),
  location: locationPayload.optional(),
}).check((ctx) => {
  const v = ctx.value;
  const any = [v.outcome_ids, v.persona_set_ids, v.recommender_ids, v.forecast_ids, v.cohort_ids, v.attributes, v.cohorts]
    .some((a) => (a?.length ?? 0) > 0) || v.location !== undefined;
  if (!any) ctx.issues.push({ code: "custom", input: v, path: [], message: "must name at least one payload element" });
});

const shape = {
  name,
  population,
  payload,
  /** A preview scope delivers a limited number of rows and is not billed. */
  preview: z.boolean({ error: (issue) => (issue.input === undefined ? "is required (true or false)" : "must be true or false") }),
};

const scopeAnswers = {
  report_url: z.string().nullish(),
  population_residence_count: z.number().int().nullish(),
  population_count: z.number().int().nullish(),
  columns: z.array(z.string()).nullish(),
};

/** Field docs of scopes, by member path (see docs.ts). */
export const scopeDocs = {
  population: "Which people the scope predicts for: one or more cohorts, unioned without duplicates. Give `cohortIds` (or `include`).",
  "population.cohort_ids": "Ids of the cohorts unioned (OR) into the population; at least one.",
  "population.include": "Ids of cohorts, the same meaning as `cohortIds` (the tutorial flow's name for it).",
  "population.exclusion_address_level_cohort_ids": "Ids of cohorts whose addresses are suppressed from the scope (household-level suppression).",
  "population.exclusion_cohort_ids": "Ids of cohorts whose people are left out of the population.",
  payload: "Which predictions the scope carries about its people: at least one of the members below.",
  "payload.outcome_ids": "Ids of outcomes: adds each one's propensity columns (`svc_outcome_<id>_propensity_percentile`, `_probability`, `_lift`).",
  "payload.persona_set_ids": "Ids of persona sets: everyone in the population matched at individual or address level is assigned a persona.",
  "payload.recommender_ids": "Ids of recommenders whose rankings are added.",
  "payload.forecast_ids": "Ids of forecasts whose predicted events are added.",
  "payload.cohort_ids": "Ids of cohorts whose membership flags are added.",
  "payload.attributes": "Private beta: raw attribute data included in the scope (element shape not published).",
  "payload.cohorts": "Private beta: cohort membership flags (element shape not published).",
  "payload.explainability": "Adds the opt-in score explainability column.",
  "payload.max_attribute_observation_date": "Caps the provided-attribute data release included in the output (`YYYY-MM-DD`).",
  "payload.location": "Publishes each person's nearest (or every) matching atlas location: `svc_location_distance`, `svc_location_name`, `svc_location_reference_key`.",
  "payload.location.atlas_ids": "Ids of the atlases whose locations are selected; every selected atlas must map a reference key column, otherwise it matches none.",
  "payload.location.location_reference_keys": "Reference keys of the locations selected, matched in every selected atlas (a key is unique only within one atlas).",
  "payload.location.selection": "`nearest`: one location per person, as scalars; `all`: every matching location, as index-aligned JSON arrays. A target receiving the location columns must be rebuilt after this changes.",
  "payload.location.min_distance": "Lower distance bound in meters; `null` removes the bound.",
  "payload.location.max_distance": "Upper distance bound in meters (at least `minDistance`); `null` removes the bound, so each person matches at any distance.",
  "payload.location.distance_output_units": "Unit of the published distance column; changing it changes that column's values at a feeding target's next build.",
  "payload.location.conditions": "Location property conditions the selected locations must meet; their members accept `null` on update to clear a stored value.",
  ...docsUnder("payload.location.conditions[]", locationPropertyConditionDocs),
  preview: "Required. `true`: a preview scope delivers a limited number of rows and is not billed; set `false` to enable the finished pipeline.",
  report_url: "Signed URL of the scope report.",
  population_residence_count: "Unique residences in the population, once the scope has built.",
  population_count: "People in the population, once the scope has built.",
  columns: "Columns the scope's output carries.",
} as const satisfies MemberDocs;

export const scope = defineFamily({
  name: "scope",
  className: "Scope",
  summary: "A pipeline: a population of cohorts joined to a payload of predictions (outcomes, personas, recommenders, forecasts, locations). Builds in the background; `preview: false` enables it.",
  collection: "scopes",
  shape,
  answers: scopeAnswers,
  docs: scopeDocs,
  references: [
    { path: "population.cohort_ids[]", collection: "cohorts" },
    { path: "population.include[]", collection: "cohorts" },
    { path: "population.exclusion_address_level_cohort_ids[]", collection: "cohorts" },
    { path: "population.exclusion_cohort_ids[]", collection: "cohorts" },
    { path: "payload.outcome_ids[]", collection: "outcomes" },
    { path: "payload.persona_set_ids[]", collection: "persona_sets" },
    { path: "payload.recommender_ids[]", collection: "recommenders" },
    { path: "payload.forecast_ids[]", collection: "forecasts" },
    { path: "payload.cohort_ids[]", collection: "cohorts" },
    { path: "payload.location.atlas_ids[]", collection: "atlases" },
  ],
});
