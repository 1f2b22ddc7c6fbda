// Cohort: a group of people defined by stream events, traits, attributes and places they are near.
import { z } from "zod";
import { defineFamily } from "./family.ts";
import { crossRule, id, issue, name, oneOf, nameText } from "./fields.ts";
import { attributeCondition, streamCondition, traitCondition } from "./conditions.ts";
import { locationPropertyCondition } from "./location.ts";
import { docsUnder, operatorDocs, type MemberDocs } from "./docs.ts";
import { locationPropertyConditionDocs } from "./location.ts";

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
  stream_name: nameText("must name an event stream").optional(),
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

const cohortAnswers = {
  population_count: z.number().int().nullish(),
  residence_count: z.number().int().nullish(),
  classic: z.boolean().nullish(),
  managed: z.boolean().nullish(),
};

export type LocationCondition = z.input<typeof locationCondition>;

/** Field docs of cohorts, by member path (see docs.ts). */
export const cohortDocs = {
  explore: "`true`: an exploratory cohort, computed without being billed as a production resource.",
  stream_name: "The event stream whose events define membership; required with `streamConditions`.",
  stream_conditions: "Conditions on the stream's event properties that members' events meet: `{property, optional?, <operator>}` with `_eq`, `_in`, `_nin`, `_matches`, `_gt`, `_gte`, `_lt`, `_lte`, `_null`, `_nnull`, `_on_or_before`, `_on_or_after`.",
  "stream_conditions[].property": "The stream property compared (a dataset may create any property name).",
  "stream_conditions[].optional": "`true`: union semantics, a person whose events lack the property still qualifies.",
  ...docsUnder("stream_conditions[]", operatorDocs),
  "stream_conditions[]._gt": "Greater than the number; not allowed on date or datetime properties (use `_on_or_after`).",
  "stream_conditions[]._gte": "Greater than or equal to the number; not allowed on date or datetime properties (use `_on_or_after`).",
  "stream_conditions[]._lt": "Less than the number; not allowed on date or datetime properties (use `_on_or_before`).",
  "stream_conditions[]._lte": "Less than or equal to the number; not allowed on date or datetime properties (use `_on_or_before`).",
  "stream_conditions[]._on_or_before": "On or before this day (`YYYY-MM-DD`, the day included, time of day ignored); only on date properties.",
  "stream_conditions[]._on_or_after": "On or after this day (`YYYY-MM-DD`, the day included, time of day ignored); only on date properties, and not later than `_on_or_before`.",
  traits: "Trait conditions all members meet: `{name, optional?, <operator>}`; operators as for stream conditions, without the date ones.",
  "traits[].name": "The trait compared.",
  "traits[].optional": "`true`: union semantics, a person lacking the trait still qualifies.",
  ...docsUnder("traits[]", operatorDocs),
  attributes: "Attribute conditions all members meet: `{name, optional?, <operator>}` on attributes such as `ig/age`, with `_eq`, `_in`, `_nin`, `_matches`, `_gt`, `_gte`, `_lt`, `_lte`, `_null`, `_nnull`.",
  "attributes[].name": "The attribute compared, e.g. `ig/age`.",
  "attributes[].optional": "`true`: union semantics, a person lacking the attribute still qualifies.",
  ...docsUnder("attributes[]", operatorDocs),
  recency: "Which of a person's events count: the first or the last, within a number of days.",
  "recency.occurrence": "Whether the person's first or last event is judged.",
  "recency.min_days": "At least this many days ago (not more than `maxDays`).",
  "recency.max_days": "At most this many days ago.",
  min_count: "At least this many matching events per person (not more than `maxCount`).",
  max_count: "At most this many matching events per person.",
  min_value: "Lower bound of a person's event value (not more than `maxValue`).",
  max_value: "Upper bound of a person's event value.",
  location_conditions: "Spatial filters: people who intersect (or, with `invert`, do not intersect) the selected locations of an atlas, each geometry expanded by `distance`. Not together with `placeConditions`.",
  "location_conditions[].atlas_id": "Id of the atlas whose locations are used.",
  "location_conditions[].location_reference_keys": "Reference keys of the locations used; all of the atlas's locations when absent.",
  "location_conditions[].conditions": "Location property conditions the locations used must meet.",
  ...docsUnder("location_conditions[].conditions[]", locationPropertyConditionDocs),
  "location_conditions[].distance": "Meters (0 or more) each location's geometry is expanded by.",
  "location_conditions[].invert": "`true`: selects the people who do not intersect the locations.",
  place_conditions: { doc: "Place conditions (element shape not published).", deprecated: "Use `locationConditions`; the two cannot be set together." },
  population_count: "People in the cohort, once it has built.",
  residence_count: "Residences of the cohort's people, once it has built.",
  classic: "Whether this is a classic (managed) cohort.",
  managed: "Whether the service manages this resource; managed resources are read-only.",
} as const satisfies MemberDocs;

export const cohort = defineFamily({
  name: "cohort",
  className: "Cohort",
  summary: "A group of people defined by events (stream conditions), traits, attributes, recency or locations.",
  collection: "cohorts",
  shape,
  rules: cohortRules,
  answers: cohortAnswers,
  docs: cohortDocs,
  references: [{ path: "location_conditions[].atlas_id", collection: "atlases" }],
});
