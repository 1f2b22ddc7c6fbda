// Target: delivery of a scope's output to a destination, in one representation, optionally filtered and limited.
import { z } from "zod";
import { body, expected, crossRule, defineFamily, id, issue, name, notAllowed, oneOf, patchOf, responseOf, type MergePatchOf } from "./common.ts";
import { conditionOf, operatorShape, OPERATORS } from "./conditions.ts";

/** Attribute names of the identity graph: `ig/` then a lowercase identifier. */
export const IG_ATTRIBUTE = /^ig\/[a-z][a-z0-9_]+$/;
export const igAttribute = z.string().regex(IG_ATTRIBUTE, { error: "must be an attribute name matching ^ig/[a-z][a-z0-9_]+$ (e.g. ig/age)" });

export const REPRESENTATION_MODES = ["identified", "hashed", "referenced", "aggregated"] as const;
export const AGGREGATE_GEOGRAPHIES = [
  "carrier_route", "census_block_group", "census_tract", "county", "dma", "metro", "postcode", "state",
] as const;

/** Named transform preset per destination kind (names not shown by the spec). */
const transformPreset = z.string().min(1).optional();
/** Off by default; `attributes` adds attribute values imputed from cohabitants and neighbors. */
const imputePayload = z.array(oneOf(["attributes"])).default([]);
const multipleIdentities = z.boolean().default(false);
const reference = z.strictObject({ dataset_id: id, column_name: z.string().min(1, { error: "must name a column" }) });

const notOnAggregated = notAllowed("is not supported by mode aggregated (only identified, hashed, referenced)");
const onlyIdentifiedOrReferenced = (mode: string) => notAllowed(`is not supported by mode ${mode} (only identified, referenced)`);
const onlyAggregated = (mode: string) => notAllowed(`is not supported by mode ${mode} (only aggregated)`);
const onlyReferenced = (mode: string) => notAllowed(`is not supported by mode ${mode} (only referenced)`);

export const representation = z.discriminatedUnion("mode", [
  z.strictObject({
    mode: z.literal("identified"),
    /** One row per person (default) or per residence. */
    aggregate: oneOf(["person", "residence"]).optional(),
    transform_preset: transformPreset,
    output_multiple_identities: multipleIdentities,
    impute_payload: imputePayload,
    include_geometry: onlyAggregated("identified"),
    reference: onlyReferenced("identified"),
    reference_dataset_id: onlyReferenced("identified"),
  }),
  z.strictObject({
    mode: z.literal("hashed"),
    transform_preset: transformPreset,
    impute_payload: imputePayload,
    output_multiple_identities: onlyIdentifiedOrReferenced("hashed"),
    include_geometry: onlyAggregated("hashed"),
    reference: onlyReferenced("hashed"),
    reference_dataset_id: onlyReferenced("hashed"),
  }),
  z.strictObject({
    mode: z.literal("referenced"),
    reference: reference.optional(),
    /** Deprecated: use reference {dataset_id, column_name}. */
    reference_dataset_id: id.optional().meta({ deprecated: true }),
    transform_preset: transformPreset,
    output_multiple_identities: multipleIdentities,
    impute_payload: imputePayload,
    include_geometry: onlyAggregated("referenced"),
  }).check((ctx) => {
    if (ctx.value.reference === undefined && ctx.value.reference_dataset_id === undefined) {
      issue(ctx, ["reference"], "is required for mode referenced: give {dataset_id, column_name}");
    }
  }),
  z.strictObject({
    mode: z.literal("aggregated"),
    /** The geography rows are aggregated to. */
    aggregate: oneOf(AGGREGATE_GEOGRAPHIES),
    include_geometry: z.boolean().optional(),
    transform_preset: transformPreset,
    impute_payload: notOnAggregated,
    output_multiple_identities: onlyIdentifiedOrReferenced("aggregated"),
    reference: onlyReferenced("aggregated"),
    reference_dataset_id: onlyReferenced("aggregated"),
  }),
], { error: expected(`one of ${REPRESENTATION_MODES.join(", ")}`) });

const csv = { delimiter: z.string().min(1).optional(), gzip: z.boolean().optional(), quote_all: z.boolean().optional() };
const upsert = z.boolean().optional();

/** Destination options keyed by type; names other than hosted_csv follow the service's client (spec: not shown). */
export const targetOptions = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("hosted_csv"), ...csv }),
  z.strictObject({ type: z.literal("lookup_api") }),
  z.strictObject({ type: z.literal("snowflake"), table_name: z.string().min(1), schema: z.string().min(1).optional(), upsert }),
  z.strictObject({ type: z.literal("bigquery"), table_name: z.string().min(1), day_partitioned: z.boolean().optional(), upsert }),
  z.strictObject({ type: z.literal("s3_csv"), object_key: z.string().min(1), ...csv }),
  z.strictObject({ type: z.literal("gcs_csv"), object_key: z.string().min(1), ...csv }),
  z.strictObject({
    type: z.literal("postgres"),
    table_name: z.string().min(1),
    schema: z.string().min(1).optional(),
    /** Replaces the whole table on each delivery; needs order_by. */
    full_replace: z.boolean().optional(),
    order_by: z.array(z.string().min(1)).min(1).optional(),
  }).check((ctx) => {
    if (ctx.value.full_replace && ctx.value.order_by === undefined) issue(ctx, ["order_by"], "is required when full_replace is true");
  }),
  z.strictObject({ type: z.literal("databricks"), table_name: z.string().min(1), schema: z.string().min(1).optional() }),
  z.strictObject({ type: z.literal("redshift"), table_name: z.string().min(1), schema: z.string().min(1).optional() }),
], { error: expected("one of hosted_csv, lookup_api, snowflake, bigquery, s3_csv, gcs_csv, postgres, databricks, redshift") });
export const HOSTED_TYPES = ["hosted_csv", "lookup_api"] as const;

/** Row limit: a percentile range of an outcome, or an absolute row count. */
export const targetLimit = z.discriminatedUnion("method", [
  z.strictObject({
    method: z.literal("percentile"),
    outcome_id: id,
    percentile_min: z.number().min(0).max(100, { error: "must be a percentile from 0 to 100" }),
    percentile_max: z.number().min(0).max(100, { error: "must be a percentile from 0 to 100" }),
  }).check((ctx) => {
    if (ctx.value.percentile_min > ctx.value.percentile_max) issue(ctx, ["percentile_min"], "must not exceed percentile_max");
  }),
  z.strictObject({
    method: z.literal("row_count"),
    threshold: z.number().int().positive({ error: "must be a positive number of rows" }),
    outcome_id: id.optional(),
    /** Which end of the outcome ranking is kept (values not shown; kept permissive). */
    direction: z.string().min(1).optional(),
  }),
], { error: expected("one of percentile, row_count") });

const NUMERIC_OPS = ["_eq", "_gt", "_gte", "_lt", "_lte", "_null", "_nnull"];
const numericShape = {
  _eq: z.number().optional(), _gt: z.number().optional(), _gte: z.number().optional(),
  _lt: z.number().optional(), _lte: z.number().optional(), _null: z.boolean().optional(), _nnull: z.boolean().optional(),
};
function bounded(what: string, key: string, max: number, unit: string) {
  const n = z.number().min(0).max(max, { error: `must be a ${unit} from 0 to ${max}` }).optional();
  return conditionOf(what, {
    [key]: id,
    ...numericShape, _eq: n, _gt: n, _gte: n, _lt: n, _lte: n,
  }, NUMERIC_OPS).check((ctx) => {
    const v = ctx.value as Record<string, number | undefined>;
    const lo = v._gte ?? v._gt;
    const hi = v._lte ?? v._lt;
    if (lo !== undefined && hi !== undefined && lo > hi) issue(ctx, [v._gte !== undefined ? "_gte" : "_gt"], "must not exceed the upper bound (_lte / _lt)");
  });
}
const idOps = ["_eq", "_in", "_nin", "_null", "_nnull"];

/** Row filter by payload element; each family takes its own operators. */
export const targetFilter = z.strictObject({
  cohort_membership: z.array(conditionOf("cohort_membership", { cohort_id: id, _eq: z.boolean().optional() }, ["_eq"])).optional(),
  outcome_percentile: z.array(bounded("outcome_percentile", "outcome_id", 100, "percentile")).optional(),
  outcome_probability: z.array(bounded("outcome_probability", "outcome_id", 1, "probability")).optional(),
  /** Deprecated: use outcome_percentile or outcome_probability. */
  outcome_score: z.array(bounded("outcome_score", "outcome_id", 100, "score")).optional().meta({ deprecated: true }),
  persona: z.array(conditionOf("persona", {
    persona_set_id: id,
    _eq: id.optional(), _in: z.array(id).optional(), _nin: z.array(id).optional(),
    _null: z.boolean().optional(), _nnull: z.boolean().optional(),
  }, idOps)).optional(),
  recommender_rank: z.array(conditionOf("recommender_rank", { recommender_id: id, ...numericShape }, NUMERIC_OPS)).optional(),
  recommender_uncalibrated_probability: z.array(bounded("recommender_uncalibrated_probability", "recommender_id", 1, "probability")).optional(),
  trait: z.array(conditionOf("trait", { name: z.string().min(1), ...operatorShape }, OPERATORS)).optional(),
  /** Conditions on scope payload attribute columns; needs an identity graph on the account. */
  attribute: z.array(conditionOf("attribute", { name: igAttribute, ...operatorShape }, OPERATORS)).optional(),
});

const shape = {
  name,
  /** The scope whose output is delivered. */
  scope_id: id,
  representation,
  options: targetOptions,
  /** The connection of a connection-based destination. */
  connection_id: id.optional(),
  filter: targetFilter.optional(),
  /** Row limit (the service's client calls it `limit`, the spec `count`); give one of them. */
  limit: targetLimit.optional(),
  count: targetLimit.optional(),
  analysis_config: z.strictObject({ attributes: z.array(igAttribute).optional() }).optional(),
  /** Delivers the location distance as svc_location_distance_m / _mi. */
  human_readable: z.boolean().optional(),
  /** Column layout (structure transform); shape not shown, kept permissive. */
  custom_structure: z.array(z.record(z.string(), z.unknown())).optional(),
};

const targetRules = crossRule<z.output<z.ZodObject<typeof shape>>>(
  ["options", "connection_id", "filter", "limit", "count", "representation"],
  (v, add) => {
    if ("upsert" in v.options && v.options.upsert && v.representation.mode !== "referenced") {
      add(["options", "upsert"], `is only supported by mode referenced (rows are matched by the reference column), not ${v.representation.mode}`);
    }
    const hosted = (HOSTED_TYPES as readonly string[]).includes(v.options.type);
    if (!hosted && v.connection_id === undefined) {
      add(["connection_id"], `is required for options.type ${v.options.type} (only hosted_csv and lookup_api need no connection)`);
    }
    if (v.options.type === "lookup_api" && v.filter !== undefined) {
      add(["filter"], "is not allowed on lookup_api targets (filters apply to delivered files and tables)");
    }
    if (v.limit !== undefined && v.count !== undefined) add(["count"], "cannot be given together with limit (they are the same setting)");
  },
);

export const targetCreate = body(shape).check(targetRules);
export const targetPatch = patchOf(shape);
export const targetResponse = responseOf(shape, {
  output_url: z.string().nullish(),
  managed: z.boolean().nullish(),
});

export type TargetCreate = z.input<typeof targetCreate>;
export type TargetPatch = MergePatchOf<TargetCreate>;
export type TargetResponse = z.output<typeof targetResponse>;
export type TargetRepresentation = z.input<typeof representation>;
export type TargetOptions = z.input<typeof targetOptions>;
export type TargetLimit = z.input<typeof targetLimit>;
export type TargetFilter = z.input<typeof targetFilter>;

export const target = defineFamily({
  name: "target",
  className: "Target",
  collection: "targets",
  create: targetCreate,
  patch: targetPatch,
  response: targetResponse,
  createOnly: ["options.type"],
  references: [
    { path: "scope_id", collection: "scopes" },
    { path: "connection_id", collection: "connections" },
    { path: "representation.reference.dataset_id", collection: "datasets" },
    { path: "representation.reference_dataset_id", collection: "datasets" },
    { path: "limit.outcome_id", collection: "outcomes" },
    { path: "count.outcome_id", collection: "outcomes" },
    { path: "filter.cohort_membership[].cohort_id", collection: "cohorts" },
    { path: "filter.outcome_percentile[].outcome_id", collection: "outcomes" },
    { path: "filter.outcome_probability[].outcome_id", collection: "outcomes" },
    { path: "filter.outcome_score[].outcome_id", collection: "outcomes" },
    { path: "filter.persona[].persona_set_id", collection: "persona_sets" },
    { path: "filter.recommender_rank[].recommender_id", collection: "recommenders" },
    { path: "filter.recommender_uncalibrated_probability[].recommender_id", collection: "recommenders" },
  ],
});
