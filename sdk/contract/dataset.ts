// Dataset: a source table of people and events, matched through identity sets and feeding streams and traits.
import { z } from "zod";
import { defineFamily } from "./family.ts";
import { expected, column, crossRule, id, issue, name, nameText } from "./fields.ts";
import { conditionOf, operatorShape, OPERATORS } from "./conditions.ts";
import { docsUnder, operatorDocs, type MemberDocs } from "./docs.ts";

/** Columns of one identifying record; values are column names of the source. */
export const identitySet = z.strictObject({
  email: column.optional(),
  email_hash: column.optional(),
  email_hash_base64: column.optional(),
  phone: column.optional(),
  phone_hash_base64: column.optional(),
  person_first_name: column.optional(),
  person_last_name: column.optional(),
  person_full_name: column.optional(),
  date_of_birth: column.optional(),
  person_date_of_birth_postcode_hash_base64: column.optional(),
  /** Preferred over address_line_1 / address_line_2: the street lines in order. */
  house_number_and_street: z.array(column).min(1).optional(),
  address_line_1: column.optional().meta({ deprecated: true }),
  address_line_2: column.optional().meta({ deprecated: true }),
  city: column.optional(),
  state: column.optional(),
  postcode: column.optional(),
  freeform_address: column.optional(),
});
export type IdentitySet = z.input<typeof identitySet>;

export const IDENTITY_SET_SUFFICIENT =
  "email, email_hash or email_hash_base64; or phone (or phone_hash_base64) with person_last_name (or person_full_name); "
  + "or house_number_and_street (or address_line_1) with city and state; or freeform_address";

/** Whether one identity set carries enough to match a person: address+city+state, email, or phone+last name. */
export function identitySetSufficient(set: IdentitySet): boolean {
  const email = set.email ?? set.email_hash ?? set.email_hash_base64;
  const phone = (set.phone ?? set.phone_hash_base64) !== undefined && (set.person_last_name ?? set.person_full_name) !== undefined;
  const address = (set.house_number_and_street ?? set.address_line_1) !== undefined && set.city !== undefined && set.state !== undefined;
  return email !== undefined || phone || address || set.freeform_address !== undefined;
}

/** Identity set names start with a letter or underscore; spaces and capitals are allowed. */
const identitySetName = nameText("must name an identity set").regex(/^[A-Za-z_]/, { error: "must start with a letter or underscore" });

export const identitySets = z.record(identitySetName, identitySet).check((ctx) => {
  const entries = Object.entries(ctx.value);
  if (entries.length === 0) issue(ctx, [], `must define at least one identity set (${IDENTITY_SET_SUFFICIENT})`);
  for (const [key, set] of entries) {
    if (!identitySetSufficient(set)) issue(ctx, [key], `is insufficient for matching: give ${IDENTITY_SET_SUFFICIENT}`);
  }
});

/** Stream and trait property formats; the service lists more than these (kept open). */
const format = z.string().min(1);

export const streamMapping = z.strictObject({
  /** `datetime` gives the event date. */
  data_map: z.record(nameText("must name a stream property"), z.strictObject({ column_name: column, format: format.optional() })),
  /** Rows kept for the stream: conditions on source columns. */
  conditions: z.array(conditionOf("row", { column_name: column, ...operatorShape }, OPERATORS)).optional(),
});

export const traitMapping = z.strictObject({
  column_name: column.optional(),
  /** A constant instead of a column. */
  value: z.union([z.string(), z.number(), z.boolean()]).optional(),
  format: format.optional(),
  transformation_table: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).optional(),
  null_values: z.array(z.string()).optional(),
}).check((ctx) => {
  if ((ctx.value.column_name === undefined) === (ctx.value.value === undefined)) {
    issue(ctx, ["column_name"], "give exactly one of column_name or value");
  }
});

const text = z.string().min(1);
const csv = { delimiter: z.string().min(1).optional(), header_row: z.boolean().optional() };

/** Source options keyed by type; names beyond hosted_csv are not shown by the spec (mirror targets'). */
export const datasetOptions = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("hosted_csv"), upload_directory: text, ...csv }),
  z.strictObject({ type: z.literal("snowflake"), table_name: text, schema: text.optional() }),
  z.strictObject({ type: z.literal("bigquery"), table_name: text }),
  z.strictObject({ type: z.literal("s3_csv"), object_key: text.optional(), prefix: text.optional(), ...csv }),
  z.strictObject({ type: z.literal("gcs_csv"), object_key: text.optional(), prefix: text.optional(), ...csv }),
  z.strictObject({ type: z.literal("postgres"), table_name: text, schema: text.optional() }),
  z.strictObject({ type: z.literal("redshift"), table_name: text, schema: text.optional() }),
  z.strictObject({ type: z.literal("databricks"), table_name: text, schema: text.optional() }),
], { error: expected("one of hosted_csv, snowflake, bigquery, s3_csv, gcs_csv, postgres, redshift, databricks") });

const shape = {
  name,
  identity_sets: identitySets,
  options: datasetOptions,
  connection_id: id.optional(),
  /** Stream name -> mapping of columns to event properties. */
  output_to_streams: z.record(nameText("must name an event stream"), streamMapping).optional(),
  /** Trait name -> column (or constant). */
  output_to_traits: z.record(nameText("must name a trait"), traitMapping).optional(),
  output_all_columns_as_traits: z.strictObject({ include: z.array(column).optional() }).optional(),
  /** Datasets merged into this one (shape not shown: their ids). */
  merge_datasets: z.array(id).optional(),
  reference_columns: z.array(column).optional(),
  /** Deprecated: use reference_columns. */
  reference_key_column: column.optional().meta({ deprecated: true }),
  reference_key_columns: z.array(column).optional(),
  primary_key_column: column.optional(),
  upsert_columns: z.array(column).optional(),
  upsert_column: column.optional(),
  /** The dataset is a suppress list or a delete list (shape not shown). */
  privacy: z.strictObject({ type: z.enum(["suppress", "delete"], { error: "must be one of suppress, delete" }) }).optional(),
  /** A preview dataset only detects columns and samples data. */
  preview: z.boolean().optional(),
};

const CONNECTIONLESS = ["hosted_csv"];

const datasetRules = crossRule<z.output<z.ZodObject<typeof shape>>>(
  ["options", "connection_id", "reference_key_column", "reference_columns"],
  (v, add) => {
    if (!CONNECTIONLESS.includes(v.options.type) && v.connection_id === undefined) {
      add(["connection_id"], `is required for options.type ${v.options.type} (only hosted_csv needs no connection)`);
    }
    if (v.reference_key_column !== undefined && v.reference_columns !== undefined) {
      add(["reference_key_column"], "cannot be given together with reference_columns (reference_key_column is deprecated)");
    }
  },
);
const datasetAnswers = {
  row_count: z.number().int().nullish(),
  identified_count: z.number().int().nullish(),
  matched_count: z.number().int().nullish(),
  /** Deprecated: use enrichment. */
  match_count: z.number().int().nullish(),
  enrichment: z.unknown().optional(),
  detected_columns: z.array(z.object({ name: z.string(), type: z.string().nullish(), identifier_recommendation: z.string().nullish() }).loose()).nullish(),
  sample_data: z.unknown().optional(),
  managed: z.boolean().nullish(),
};

/** Field docs of the options of a source read from an upload directory or through a connection. */
export const sourceOptionsDocs = {
  upload_directory: "`hosted_csv`: the upload directory read (an `Upload`'s `directory`).",
  delimiter: "CSV field delimiter.",
  header_row: "Whether the CSV's first row names the columns.",
  object_key: "`s3_csv`, `gcs_csv`: one object read from the connection's bucket.",
  prefix: "`s3_csv`, `gcs_csv`: every object under this key prefix is read.",
  table_name: "The source table.",
  schema: "The source table's schema.",
} as const satisfies MemberDocs;

/** Field docs of datasets, by member path (see docs.ts). */
export const datasetDocs = {
  identity_sets: "Identity set name -> the columns of one identifying record. Names start with a letter or underscore. Each set must suffice for matching: an email (or its hash), a phone with a last or full name, street lines with city and state, or a freeform address.",
  "identity_sets.*.email": "Column of the e-mail address.",
  "identity_sets.*.email_hash": "Column of the e-mail address's hash.",
  "identity_sets.*.email_hash_base64": "Column of the e-mail address's hash, base64.",
  "identity_sets.*.phone": "Column of the phone number.",
  "identity_sets.*.phone_hash_base64": "Column of the phone number's hash, base64.",
  "identity_sets.*.person_first_name": "Column of the first name.",
  "identity_sets.*.person_last_name": "Column of the last name.",
  "identity_sets.*.person_full_name": "Column of the full name.",
  "identity_sets.*.date_of_birth": "Column of the date of birth.",
  "identity_sets.*.person_date_of_birth_postcode_hash_base64": "Column of the hash of date of birth and postcode, base64.",
  "identity_sets.*.house_number_and_street": "Columns of the street lines, in order.",
  "identity_sets.*.address_line_1": { doc: "Column of the first street line.", deprecated: "Use `houseNumberAndStreet`." },
  "identity_sets.*.address_line_2": { doc: "Column of the second street line.", deprecated: "Use `houseNumberAndStreet`." },
  "identity_sets.*.city": "Column of the city.",
  "identity_sets.*.state": "Column of the state.",
  "identity_sets.*.postcode": "Column of the postcode.",
  "identity_sets.*.freeform_address": "Column of a one-line address.",
  options: "Where the rows are read from, chosen by `type`: `hosted_csv` (an upload directory), or through `connectionId`: `snowflake`, `bigquery`, `s3_csv`, `gcs_csv`, `postgres`, `redshift`, `databricks`.",
  "options.type": "The source kind.",
  ...docsUnder("options", sourceOptionsDocs),
  connection_id: "Id of the connection read from; required for every `options.type` but `hosted_csv`.",
  output_to_streams: "Stream name -> how rows become events of that stream.",
  "output_to_streams.*.data_map": "Event property -> source column; `datetime` gives the event date.",
  "output_to_streams.*.data_map.*.column_name": "The source column.",
  "output_to_streams.*.data_map.*.format": "How the column's values are read, e.g. `currency_cents`, `currency_dollars`, `date_iso8601`, `yyyy_mm_dd_dash`.",
  "output_to_streams.*.conditions": "Conditions on source columns a row meets to become an event: `{columnName, <operator>}`.",
  "output_to_streams.*.conditions[].column_name": "The source column compared.",
  ...docsUnder("output_to_streams.*.conditions[]", operatorDocs),
  output_to_traits: "Trait name -> the column (or constant) it is read from.",
  "output_to_traits.*.column_name": "The source column; give it or `value`.",
  "output_to_traits.*.value": "A constant instead of a column; give it or `columnName`.",
  "output_to_traits.*.format": "How the column's values are read.",
  "output_to_traits.*.transformation_table": "Source value -> trait value.",
  "output_to_traits.*.null_values": "Source values read as absent.",
  output_all_columns_as_traits: "Reads source columns as traits of the same names.",
  "output_all_columns_as_traits.include": "Only these columns.",
  merge_datasets: "Ids of datasets merged into this one.",
  reference_columns: "Columns that identify a row, for `referenced` targets.",
  reference_key_column: { doc: "The column that identifies a row.", deprecated: "Use `referenceColumns`; the two cannot be given together." },
  reference_key_columns: "Columns that identify a row.",
  primary_key_column: "The column of each row's primary key.",
  upsert_columns: "Columns by which re-read rows replace earlier ones.",
  upsert_column: "The column by which re-read rows replace earlier ones.",
  privacy: "Makes the dataset a privacy list.",
  "privacy.type": "`suppress`: its people are suppressed from deliveries; `delete`: their data is deleted.",
  preview: "`true`: a preview dataset only detects columns and samples data.",
  row_count: "Rows read.",
  identified_count: "Rows that carried a usable identity.",
  matched_count: "Rows matched to a person.",
  match_count: { doc: "Rows matched to a person.", deprecated: "Use `enrichment`." },
  enrichment: "Enrichment rates by provider.",
  sample_data: "Sample rows.",
  managed: "Whether the service manages this resource; managed resources are read-only.",
  detected_columns: "Columns found in the source.",
  "detected_columns[].name": "The column's name.",
  "detected_columns[].type": "The type detected for the column (`unknown` and `uuid` among them).",
  "detected_columns[].identifier_recommendation": "The identifier the column seems to hold, to map in `identitySets`.",
} as const satisfies MemberDocs;

export const dataset = defineFamily({
  name: "dataset",
  className: "Dataset",
  summary: "A source of events and traits read from a connection or an upload. Changing `options.type` replaces it.",
  collection: "datasets",
  shape,
  rules: datasetRules,
  answers: datasetAnswers,
  docs: datasetDocs,
  createOnly: ["options.type"],
  references: [
    { path: "connection_id", collection: "connections" },
    { path: "merge_datasets[]", collection: "datasets" },
  ],
});
