// Target: delivery of a scope's output to a destination, in one representation, optionally filtered and limited.
import { z } from "zod";
import { defineFamily } from "./family.ts";
import { expected, crossRule, id, issue, name, notAllowed, oneOf } from "./fields.ts";
import { conditionOf, operatorShape, OPERATORS } from "./conditions.ts";
import { docsUnder, operatorDocs, type MemberDocs } from "./docs.ts";

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
function bounded<K extends string>(what: string, key: K, max: number, unit: string) {
  const n = z.number().min(0).max(max, { error: `must be a ${unit} from 0 to ${max}` }).optional();
  return conditionOf(what, {
    ...({ [key]: id } as Record<K, typeof id>),
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

const targetAnswers = {
  output_url: z.string().nullish(),
  managed: z.boolean().nullish(),
};

export type TargetRepresentation = z.input<typeof representation>;
export type TargetOptions = z.input<typeof targetOptions>;
export type TargetLimit = z.input<typeof targetLimit>;
export type TargetFilter = z.input<typeof targetFilter>;

const limitDocs = {
  method: "`percentile`: keep rows within a percentile range of an outcome; `row_count`: keep a number of rows.",
  outcome_id: "Id of the outcome that ranks rows; required with `percentile`, optional with `row_count`.",
  percentile_min: "Lowest percentile kept, 0 to 100 (not more than `percentileMax`); with `percentile`.",
  percentile_max: "Highest percentile kept, 0 to 100; with `percentile`.",
  threshold: "Number of rows kept (a positive integer); with `row_count`.",
  direction: "Which end of the outcome ranking is kept; with `row_count`.",
} as const satisfies MemberDocs;
const boundedDocs = (what: string, range?: string) => ({
  ...numericOperatorDocs(range === undefined ? "" : ` (${range})`),
  _null: `\`true\`: the ${what} is absent.`,
  _nnull: `\`true\`: the ${what} is present.`,
});
const numericOperatorDocs = (range: string) => ({
  _eq: `Equal to the number${range}.`,
  _gt: `Greater than the number${range}.`,
  _gte: `Greater than or equal to the number${range}; not above the upper bound.`,
  _lt: `Less than the number${range}.`,
  _lte: `Less than or equal to the number${range}.`,
});

/** Field docs of targets, by member path (see docs.ts). */
export const targetDocs = {
  scope_id: "Id of the scope whose output is delivered.",
  representation: "How people appear in the delivery, chosen by `mode`: `identified`, `hashed`, `referenced` or `aggregated`.",
  "representation.mode": "`identified`: identities in clear; `hashed`: hashed identities; `referenced`: rows keyed by a column of one of your datasets; `aggregated`: counts and averages per geography.",
  "representation.aggregate": "`identified`: one row per `person` (default) or per `residence`. `aggregated` (required): the geography rows are aggregated to: `carrier_route`, `census_block_group`, `census_tract`, `county`, `dma`, `metro`, `postcode` or `state`.",
  "representation.transform_preset": "Named structure transform preset of the destination kind; the default structure when absent.",
  "representation.output_multiple_identities": "`identified` and `referenced` modes: one row per identity of a person rather than one per person.",
  "representation.impute_payload": "`identified`, `hashed`, `referenced` modes: `[\"attributes\"]` adds attribute values imputed from cohabitants and neighbors; otherwise only values from rows matched at person-level precision are included (off by default).",
  "representation.reference": "`referenced` mode (required): the dataset column rows are keyed by.",
  "representation.reference.dataset_id": "Id of the dataset holding the reference column.",
  "representation.reference.column_name": "The reference column of that dataset.",
  "representation.reference_dataset_id": { doc: "`referenced` mode: id of the dataset rows are keyed by.", deprecated: "Use `reference: {datasetId, columnName}`." },
  "representation.include_geometry": "`aggregated` mode: appends each geography's geometry.",
  options: "The destination, chosen by `type`: `hosted_csv` (a CSV the service hosts, at `outputUrl`), `lookup_api` (a lookup endpoint), or a table or file reached through `connectionId`: `snowflake`, `bigquery`, `s3_csv`, `gcs_csv`, `postgres`, `databricks`, `redshift`.",
  "options.type": "The destination kind.",
  "options.delimiter": "CSV field delimiter (`hosted_csv`, `s3_csv`, `gcs_csv`).",
  "options.gzip": "Compresses the CSV with gzip.",
  "options.quote_all": "Quotes every CSV field.",
  "options.table_name": "The destination table.",
  "options.schema": "The destination table's schema.",
  "options.upsert": "`snowflake`, `bigquery`: updates rows in place, matched by the reference column; only with representation mode `referenced`.",
  "options.day_partitioned": "`bigquery`: partitions the table by day.",
  "options.object_key": "`s3_csv`, `gcs_csv`: the object key written in the connection's bucket.",
  "options.full_replace": "`postgres`: replaces the whole table on each delivery; requires `orderBy`.",
  "options.order_by": "`postgres`: columns the replaced table is ordered by; required with `fullReplace`.",
  connection_id: "Id of the connection of a connection-based destination; required for every `options.type` but `hosted_csv` and `lookup_api`.",
  filter: "Filters the delivered rows by payload elements; not allowed on `lookup_api` targets.",
  "filter.cohort_membership": "Rows by cohort membership: `{cohortId, _eq: true | false}`.",
  "filter.cohort_membership[].cohort_id": "Id of a payload cohort.",
  "filter.cohort_membership[]._eq": "`true`: members of the cohort; `false`: non-members.",
  "filter.outcome_percentile": "Rows by an outcome's propensity percentile (0 to 100): `{outcomeId, _gte?, _lte?, ...}`.",
  "filter.outcome_percentile[].outcome_id": "Id of a payload outcome.",
  ...docsUnder("filter.outcome_percentile[]", boundedDocs("percentile", "0 to 100")),
  "filter.outcome_probability": "Rows by an outcome's propensity probability (0 to 1): `{outcomeId, _gte?, _lte?, ...}`.",
  "filter.outcome_probability[].outcome_id": "Id of a payload outcome.",
  ...docsUnder("filter.outcome_probability[]", boundedDocs("probability", "0 to 1")),
  "filter.outcome_score": { doc: "Rows by an outcome's score (0 to 100).", deprecated: "Use `outcomePercentile` or `outcomeProbability`." },
  "filter.outcome_score[].outcome_id": "Id of a payload outcome.",
  ...docsUnder("filter.outcome_score[]", boundedDocs("score", "0 to 100")),
  "filter.persona": "Rows by assigned persona: `{personaSetId, _eq | _in | _nin | _null | _nnull}` with persona ids.",
  "filter.persona[].persona_set_id": "Id of a payload persona set.",
  "filter.persona[]._eq": "The persona with this id.",
  "filter.persona[]._in": "One of the personas with these ids.",
  "filter.persona[]._nin": "None of the personas with these ids.",
  "filter.persona[]._null": "`true`: no persona assigned.",
  "filter.persona[]._nnull": "`true`: a persona assigned.",
  "filter.recommender_rank": "Rows by a recommender's rank: `{recommenderId, <numeric operator>}`.",
  "filter.recommender_rank[].recommender_id": "Id of a payload recommender.",
  ...docsUnder("filter.recommender_rank[]", boundedDocs("rank")),
  "filter.recommender_uncalibrated_probability": "Rows by a recommender's uncalibrated probability (0 to 1).",
  "filter.recommender_uncalibrated_probability[].recommender_id": "Id of a payload recommender.",
  ...docsUnder("filter.recommender_uncalibrated_probability[]", boundedDocs("probability", "0 to 1")),
  "filter.trait": "Rows by trait value: `{name, <operator>}`.",
  "filter.trait[].name": "The trait compared.",
  ...docsUnder("filter.trait[]", operatorDocs),
  "filter.attribute": "Rows by the scope payload's attribute columns: `{name, <operator>}`; needs an account with an identity graph.",
  "filter.attribute[].name": "The attribute compared: `ig/` then a lowercase name (`^ig/[a-z][a-z0-9_]+$`).",
  ...docsUnder("filter.attribute[]", operatorDocs),
  limit: "Row limit: a percentile range of an outcome, or a number of rows. Give `limit` or `count`, not both.",
  ...docsUnder("limit", limitDocs),
  count: "Row limit under the spec's name; the same setting as `limit` (give one of them).",
  ...docsUnder("count", limitDocs),
  analysis_config: "Analysis settings of the target's report.",
  "analysis_config.attributes": "Attribute names used as analysis dimensions (`^ig/[a-z][a-z0-9_]+$`); needs an account with an identity graph feature store.",
  human_readable: "Delivers the location distance as `svc_location_distance_m` or `_mi`, naming the unit.",
  custom_structure: "Column layout (structure transform); element shape not published.",
  output_url: "Signed URL of the hosted CSV or the lookup endpoint.",
  managed: "Whether the service manages this resource; managed resources are read-only.",
} as const satisfies MemberDocs;

export const target = defineFamily({
  name: "target",
  className: "Target",
  summary: "A delivery of a scope's output: a hosted CSV, a lookup API, or a table or bucket reached through a connection. `outputUrl` is the hosted file or lookup endpoint. Changing `options.type` replaces it.",
  collection: "targets",
  shape,
  rules: targetRules,
  answers: targetAnswers,
  docs: targetDocs,
  createOnly: ["options.type"],
  accountFeatures: [
    { path: "analysis_config.attributes", features: ["identity_graph", "feature_store"] },
    { path: "filter.attribute", features: ["identity_graph"] },
  ],
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
