// Attribute: one trait-like value selected from several event stream assertions; feature store: a set of them.
import { z } from "zod";
import { body, defineFamily, ids, isoDate, issue, name, patchOf, responseOf, type MergePatchOf } from "./common.ts";
import { statisticalType } from "./stream.ts";

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
  source_column: z.string().min(1),
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

export const attributeCreate = body(shape);
export const attributePatch = patchOf(shape);
export const attributeResponse = responseOf(shape, {
  categories: z.array(z.unknown()).nullish(),
  permissions: z.array(z.string()).nullish(),
});
export type AttributeCreate = z.input<typeof attributeCreate>;
export type AttributePatch = MergePatchOf<AttributeCreate>;
export type AttributeResponse = z.output<typeof attributeResponse>;

export const attribute = defineFamily({
  name: "attribute",
  className: "Attribute",
  collection: "attributes",
  create: attributeCreate,
  patch: attributePatch,
  response: attributeResponse,
});

/** The feature store's member list (shape not shown): attribute ids. */
const featureStoreShape = { name, attribute_ids: ids.optional() };

export const featureStoreCreate = body(featureStoreShape);
export const featureStorePatch = patchOf(featureStoreShape);
export const featureStoreResponse = responseOf(featureStoreShape, {});
export type FeatureStoreCreate = z.input<typeof featureStoreCreate>;
export type FeatureStorePatch = MergePatchOf<FeatureStoreCreate>;
export type FeatureStoreResponse = z.output<typeof featureStoreResponse>;

export const featureStore = defineFamily({
  name: "feature_store",
  className: "FeatureStore",
  collection: "feature_stores",
  create: featureStoreCreate,
  patch: featureStorePatch,
  response: featureStoreResponse,
  references: [{ path: "attribute_ids[]", collection: "attributes" }],
});
