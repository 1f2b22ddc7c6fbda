// Cohort: a group of people defined by stream events, traits, attributes and places they are near.
import { z } from "zod";
import { body, crossRule, defineFamily, id, issue, name, oneOf, patchOf, responseOf, type MergePatchOf } from "./common.ts";
import { attributeCondition, streamCondition, traitCondition } from "./conditions.ts";
import { locationPropertyCondition } from "./location.ts";

/**
 * One spatial filter (shape not shown by the spec): people who intersect the selected locations of an atlas,
 * each geometry expanded by `distance` meters; `invert` selects those who do not.
 */
export const locationCondition = z.strictObject({
  atlas_id: id,
  location_reference_keys: z.array(z.string()).optional(),
  conditions: z.array(locationPropertyCondition).optional(),
  distance: z.number().nonnegative({ error: "must be a distance in meters (0 or more)" }).optional(),
  invert: z.boolean().optional(),
});

const recency = z.strictObject({
  occurrence: oneOf(["first", "last"]),
  min_days: z.number().int().nonnegative().optional(),
  max_days: z.number().int().nonnegative().optional(),
}).check((ctx) => {
  const { min_days: min, max_days: max } = ctx.value;
  if (min !== undefined && max !== undefined && min > max) issue(ctx, ["min_days"], "must not exceed max_days");
});

const shape = {
  name,
  /** Exploratory cohorts are computed without being billed as production resources. */
  explore: z.boolean().default(false),
  /** The event stream whose events define membership. */
  stream_name: z.string().min(1).optional(),
  stream_conditions: z.array(streamCondition).optional(),
  traits: z.array(traitCondition).optional(),
  attributes: z.array(attributeCondition).optional(),
  recency: recency.optional(),
  min_count: z.number().int().nonnegative().optional(),
  max_count: z.number().int().nonnegative().optional(),
  min_value: z.number().optional(),
  max_value: z.number().optional(),
  location_conditions: z.array(locationCondition).optional(),
  /** Deprecated: superseded by location_conditions; element shape not shown, kept permissive. */
  place_conditions: z.array(z.record(z.string(), z.unknown())).optional().meta({ deprecated: true }),
};

type CohortBody = z.output<z.ZodObject<typeof shape>>;

const cohortRules = crossRule<CohortBody>(
  ["location_conditions", "place_conditions", "stream_conditions", "stream_name", "min_count", "max_count", "min_value", "max_value"],
  (v, add) => {
    if (v.location_conditions !== undefined && v.place_conditions !== undefined) {
      add(["place_conditions"], "cannot be set together with location_conditions (place_conditions is deprecated: use location_conditions)");
    }
    if (v.stream_conditions?.length && v.stream_name === undefined) add(["stream_name"], "is required when stream_conditions are given");
    for (const [lo, hi] of [["min_count", "max_count"], ["min_value", "max_value"]] as const) {
      const a = v[lo];
      const b = v[hi];
      if (a !== undefined && b !== undefined && a > b) add([lo], `must not exceed ${hi}`);
    }
  },
);

export const cohortCreate = body(shape).check(cohortRules);
export const cohortPatch = patchOf(shape);
export const cohortResponse = responseOf(shape, {
  population_count: z.number().int().nullish(),
  residence_count: z.number().int().nullish(),
  classic: z.boolean().nullish(),
  managed: z.boolean().nullish(),
});

export type CohortCreate = z.input<typeof cohortCreate>;
export type CohortPatch = MergePatchOf<CohortCreate>;
export type CohortResponse = z.output<typeof cohortResponse>;
export type LocationCondition = z.input<typeof locationCondition>;

export const cohort = defineFamily({
  name: "cohort",
  className: "Cohort",
  collection: "cohorts",
  create: cohortCreate,
  patch: cohortPatch,
  response: cohortResponse,
  references: [{ path: "location_conditions[].atlas_id", collection: "atlases" }],
});
