// Scope (pipeline): a population of cohorts joined to a payload of predictions.
import { z } from "zod";
import { body, defineFamily, ids, isoDate, name, patchOf, responseOf, type MergePatchOf } from "./common.ts";
import { locationPropertyCondition } from "./location.ts";

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
  if (!ctx.value.cohort_ids?.length && !ctx.value.include?.length) {
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
  preview: z.boolean({ error: "is required (true or false)" }),
};

export const scopeCreate = body(shape);
export const scopePatch = patchOf(shape);
export const scopeResponse = responseOf(shape, {
  report_url: z.string().nullish(),
  population_residence_count: z.number().int().nullish(),
  population_count: z.number().int().nullish(),
  columns: z.array(z.string()).nullish(),
});

export type ScopeCreate = z.input<typeof scopeCreate>;
export type ScopePatch = MergePatchOf<ScopeCreate>;
export type ScopeResponse = z.output<typeof scopeResponse>;

export const scope = defineFamily({
  name: "scope",
  className: "Scope",
  collection: "scopes",
  create: scopeCreate,
  patch: scopePatch,
  response: scopeResponse,
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
