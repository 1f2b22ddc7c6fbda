// Stream: a named series of events; properties are declared here or created by datasets' output_to_streams.
import { z } from "zod";
import { defineFamily } from "./family.ts";
import { isoDate, name, oneOf, nameText } from "./fields.ts";
import type { MemberDocs } from "./docs.ts";

export const STATISTICAL_TYPES = [
  "continuous_ordinal", "categorical_nominal", "multicategorical_nominal", "categorical_ordinal", "binary", "count",
  "interval", "ratio",
] as const;
/** Deprecated statistical types, still accepted. */
export const LEGACY_STATISTICAL_TYPES = ["categorical", "multicategorical", "ordinal", "nominal"] as const;
export const statisticalType = oneOf([...STATISTICAL_TYPES, ...LEGACY_STATISTICAL_TYPES]);

/** Declared type of a stream property (the `datetime` property is of type date). */
export const propertyType = oneOf(["boolean", "long", "double", "string", "date"]);

export const streamProperty = z.strictObject({
  type: propertyType.optional(),
  statistical_type: statisticalType.optional(),
  unit: z.string().optional(),
  description: z.string().optional(),
});

const shape = {
  name,
  description: z.string().optional(),
  /** Property name -> declaration; any property name may be created. */
  properties: z.record(nameText("must name a stream property"), streamProperty).optional(),
};

const streamAnswers = {
  event_count: z.number().int().nullish(),
  oldest_date: isoDate.or(z.string()).nullish(),
  newest_date: isoDate.or(z.string()).nullish(),
  event_contribution_by_dataset: z.array(z.object({ dataset_id: z.string(), event_count: z.number() }).loose()).nullish(),
};

/** Field docs of streams, by member path (see docs.ts). */
export const streamDocs = {
  description: "What the stream's events are.",
  properties: "Property name -> declaration; datasets' `outputToStreams` may create any property name. The `datetime` property has type `date`.",
  "properties.*.type": "The property's type; date comparisons (`_on_or_before`, `_on_or_after`) apply to `date` properties only.",
  "properties.*.statistical_type": "How the values are distributed; the legacy `categorical`, `multicategorical`, `ordinal` and `nominal` are deprecated but accepted.",
  "properties.*.unit": "Unit of the values.",
  "properties.*.description": "What the property is.",
  event_count: "Events in the stream.",
  oldest_date: "Date of the oldest event; absent for streams without dated data.",
  newest_date: "Date of the newest event; absent for streams without dated data.",
  event_contribution_by_dataset: "The stream's configured datasets and their events (0 for one that contributed nothing).",
  "event_contribution_by_dataset[].dataset_id": "Id of the dataset.",
  "event_contribution_by_dataset[].event_count": "Events it contributed.",
} as const satisfies MemberDocs;

export const stream = defineFamily({
  name: "stream",
  className: "Stream",
  summary: "An event stream: its properties are declared here and filled by datasets.",
  collection: "streams",
  shape,
  answers: streamAnswers,
  docs: streamDocs,
});
