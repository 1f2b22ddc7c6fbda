// Attribute: one trait-like value selected from several event stream assertions; feature store: a set of them.
import { z } from "zod";
import { defineFamily } from "./family.ts";
import { column, ids, isoDate, issue, name } from "./fields.ts";
import { statisticalType } from "./stream.ts";
import type { MemberDocs } from "./docs.ts";

/** Optional transform of a source value: a cast, a selector, or a decode/recode table. */
export const sourceTransform = z.strictObject({
  cast: z.string().min(1).optional(),
  selector: z.string().min(1).optional(),
  decode: z.record(z.string(), z.unknown()).optional(),
  recode: z.record(z.string(), z.unknown()).optional(),
});

/** Effective-dated source: an authority's column from a date on (inclusive). */
export const attributeSource = z.strictObject({
  authority: z.string().min(1),
  source_column: column,
  effective_from: isoDate,
  effective_until: isoDate.optional(),
  precision: z.unknown().optional(),
  quality: z.unknown().optional(),
  derivations: z.array(z.unknown()).optional(),
  transform: sourceTransform.optional(),
}).check((ctx) => {
  const { effective_from: from, effective_until: until } = ctx.value;
  if (until !== undefined && until < from) issue(ctx, ["effective_until"], `must not be before effective_from (${from})`);
});

const shape = {
  name,
  type: z.string().min(1).optional(),
  statistical_type: statisticalType.optional(),
  unit: z.string().optional(),
  /** Bin edges for continuous data. */
  breaks: z.array(z.number()).optional(),
  aggregation: z.strictObject({ method: z.string().min(1) }).optional(),
  default_selector_by_purpose: z.record(z.string(), z.string()).optional(),
  sources: z.array(attributeSource).optional(),
};

const attributeAnswers = {
  categories: z.array(z.unknown()).nullish(),
  permissions: z.array(z.string()).nullish(),
};

/** Field docs of attributes, by member path (see docs.ts). */
export const attributeDocs = {
  type: "The attribute's value type.",
  statistical_type: "How the values are distributed; the legacy `categorical`, `multicategorical`, `ordinal` and `nominal` are deprecated but accepted.",
  unit: "Unit of the values.",
  breaks: "Bin edges for continuous data.",
  aggregation: "How several assertions combine into one value.",
  "aggregation.method": "The aggregation method, e.g. `sum` or `count_not_null`.",
  default_selector_by_purpose: "Purpose -> the selector that picks the best assertion for it.",
  sources: "Effective-dated sources: an authority's column from a date on.",
  "sources[].authority": "The authority the values come from.",
  "sources[].source_column": "The authority's column.",
  "sources[].effective_from": "First day the source applies (`YYYY-MM-DD`, included).",
  "sources[].effective_until": "Last day the source applies (`YYYY-MM-DD`); not before `effectiveFrom`.",
  "sources[].precision": "Precision of the source's values.",
  "sources[].quality": "Quality of the source's values.",
  "sources[].derivations": "Derivations applied to the source's values.",
  "sources[].transform": "Transform of the source's values: a cast, a selector, or a decode/recode table.",
  "sources[].transform.cast": "Type the values are cast to.",
  "sources[].transform.selector": "Selector applied to the values.",
  "sources[].transform.decode": "Source value -> decoded value.",
  "sources[].transform.recode": "Value -> recoded value.",
  categories: "Observed values of categorical data.",
  permissions: "What the account may do with the attribute, e.g. `add_to_scope_payload`.",
} as const satisfies MemberDocs;

export const attribute = defineFamily({
  name: "attribute",
  className: "Attribute",
  summary: "An attribute: several event-stream assertions wrapped into one trait-like value.",
  collection: "attributes",
  shape,
  answers: attributeAnswers,
  docs: attributeDocs,
});

/** The feature store's member list (shape not shown): attribute ids. */
const featureStoreShape = { name, attribute_ids: ids.optional() };

/** Field docs of feature stores, by member path (see docs.ts). */
export const featureStoreDocs = {
  attribute_ids: "Ids of the attributes in the store.",
} as const satisfies MemberDocs;

export const featureStore = defineFamily({
  name: "feature_store",
  className: "FeatureStore",
  summary: "A collection of attributes.",
  collection: "feature_stores",
  shape: featureStoreShape,
  docs: featureStoreDocs,
  references: [{ path: "attribute_ids[]", collection: "attributes" }],
});
