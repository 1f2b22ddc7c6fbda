// Atlas: a collection of geographic locations imported from a connection; Location: one of them (read-only).
import { z } from "zod";
import { common, defineFamily } from "./family.ts";
import { expected, column, crossRule, id, issue, name, nameText } from "./fields.ts";
import { sourceOptionsDocs } from "./dataset.ts";
import { docsUnder, type MemberDocs } from "./docs.ts";

const RESERVED_PROPERTIES = ["name", "reference_key"];

/** Placement groups: each location is placed by exactly one of them, or by none. */
export const PLACEMENT_GROUPS = {
  geometry: ["geometry"],
  coordinates: ["latitude", "longitude"],
  address: ["house_number_and_street", "city", "state", "postcode", "freeform_address"],
} as const;

export const outputToLocations = z.strictObject({
  name: column.optional(),
  reference_key: column.optional(),
  /** A geometry column (coordinates longitude first); a bare coordinate pair is split into latitude and longitude. */
  geometry: column.optional(),
  latitude: column.optional(),
  longitude: column.optional(),
  house_number_and_street: z.array(column).min(1).optional(),
  city: column.optional(),
  state: column.optional(),
  postcode: column.optional(),
  freeform_address: column.optional(),
  /** Location property name -> source column. */
  properties: z.record(nameText("must name a location property"), z.strictObject({ column_name: column, format: z.string().min(1).optional() })).optional(),
}).check((ctx) => {
  const v = ctx.value as Record<string, unknown>;
  const named = (Object.keys(PLACEMENT_GROUPS) as (keyof typeof PLACEMENT_GROUPS)[])
    .map((group) => ({ group, members: PLACEMENT_GROUPS[group].filter((m) => v[m] !== undefined) }))
    .filter((g) => g.members.length > 0);
  const kept = named[0]?.members.join(", ");
  for (const g of named.slice(1)) {
    for (const member of g.members) {
      issue(ctx, [member], `cannot be combined with ${kept}: place locations by exactly one group `
        + "(geometry; latitude and longitude; or address columns); set the columns of the group you leave to null");
    }
  }
  if ((v.latitude === undefined) !== (v.longitude === undefined)) {
    issue(ctx, [v.latitude === undefined ? "latitude" : "longitude"], "is required: latitude and longitude are named together");
  }
  for (const key of Object.keys(ctx.value.properties ?? {})) {
    if (RESERVED_PROPERTIES.includes(key)) {
      issue(ctx, ["properties", key], `is reserved: conditions on ${key} read the location's own ${key}; name the property differently`);
    }
  }
});

const text = z.string().min(1);

/** Source options per connection type (file-based and client-hosted warehouses); names not shown by the spec. */
export const atlasOptions = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("hosted_csv"), upload_directory: text, delimiter: text.optional(), header_row: z.boolean().optional() }),
  z.strictObject({ type: z.literal("s3_csv"), object_key: text.optional(), prefix: text.optional(), delimiter: text.optional() }),
  z.strictObject({ type: z.literal("gcs_csv"), object_key: text.optional(), prefix: text.optional(), delimiter: text.optional() }),
  z.strictObject({ type: z.literal("snowflake"), table_name: text, schema: text.optional() }),
  z.strictObject({ type: z.literal("bigquery"), table_name: text }),
  z.strictObject({ type: z.literal("postgres"), table_name: text, schema: text.optional() }),
  z.strictObject({ type: z.literal("redshift"), table_name: text, schema: text.optional() }),
  z.strictObject({ type: z.literal("databricks"), table_name: text, schema: text.optional() }),
], { error: expected("one of hosted_csv, s3_csv, gcs_csv, snowflake, bigquery, postgres, redshift, databricks") });

const shape = {
  name,
  options: atlasOptions,
  connection_id: id.optional(),
  output_to_locations: outputToLocations,
};

const atlasRules = crossRule<z.output<z.ZodObject<typeof shape>>>(["options", "connection_id"], (v, add) => {
  if (v.options.type !== "hosted_csv" && v.connection_id === undefined) {
    add(["connection_id"], `is required for options.type ${v.options.type} (only hosted_csv needs no connection)`);
  }
});
const atlasAnswers = {
  /** Source rows, rows that produced a location, rows that placed none. */
  counts: z.record(z.string(), z.number()).nullish(),
  detected_columns: z.array(z.object({ name: z.string(), type: z.string().nullish() }).loose()).nullish(),
};

export type OutputToLocations = z.input<typeof outputToLocations>;

/** Field docs of atlases, by member path (see docs.ts). */
export const atlasDocs = {
  options: "Where the locations are read from, chosen by `type`: `hosted_csv` (an upload directory), or through `connectionId`: `s3_csv`, `gcs_csv`, `snowflake`, `bigquery`, `postgres`, `redshift`, `databricks`.",
  "options.type": "The source kind.",
  ...docsUnder("options", sourceOptionsDocs),
  connection_id: "Id of the connection read from; required for every `options.type` but `hosted_csv`.",
  output_to_locations: "Maps source columns to each location. A location is placed by exactly one group: `geometry`; `latitude` and `longitude`; or address columns (`houseNumberAndStreet`, `city`, `state`, `postcode`, `freeformAddress`). Naming none is allowed; on update, set the columns of a group you leave to `null`.",
  "output_to_locations.name": "Column of the location's name.",
  "output_to_locations.reference_key": "Column of the location's reference key (what scopes and cohorts select locations by).",
  "output_to_locations.geometry": "Column of a geometry, coordinates longitude first; a bare coordinate pair is split into latitude and longitude.",
  "output_to_locations.latitude": "Column of the latitude; named together with `longitude`.",
  "output_to_locations.longitude": "Column of the longitude; named together with `latitude`.",
  "output_to_locations.house_number_and_street": "Columns of the street lines, in order.",
  "output_to_locations.city": "Column of the city.",
  "output_to_locations.state": "Column of the state.",
  "output_to_locations.postcode": "Column of the postcode.",
  "output_to_locations.freeform_address": "Column of a one-line address.",
  "output_to_locations.properties": "Location property name -> source column; `name` and `reference_key` are reserved.",
  "output_to_locations.properties.*.column_name": "The source column.",
  "output_to_locations.properties.*.format": "How the column's values are read.",
  counts: "Source rows, rows that produced a location, and rows that placed none (geometry unreadable, encloses nowhere, or outline too large).",
  detected_columns: "Columns found in the source.",
  "detected_columns[].name": "The column's name.",
  "detected_columns[].type": "The type detected for the column.",
} as const satisfies MemberDocs;

export const atlas = defineFamily({
  name: "atlas",
  className: "Atlas",
  summary: "A collection of geographic locations imported from a connection or an upload. Changing `options.type` replaces it.",
  collection: "atlases",
  shape,
  rules: atlasRules,
  answers: atlasAnswers,
  docs: atlasDocs,
  createOnly: ["options.type"],
  references: [{ path: "connection_id", collection: "connections" }],
});

/** A location of an atlas, as listed by GET /locations and /atlases/{id}/locations. */
export const locationResponse = z.object({
  ...common,
  atlas_id: id,
  name: z.string().nullish(),
  reference_key: z.string().nullish(),
  geometry: z.unknown().optional(),
  properties: z.record(z.string(), z.unknown()).nullish(),
  /** Decimal degrees (EPSG 4326), only for locations placed from latitude and longitude columns. */
  latitude: z.number().nullish(),
  longitude: z.number().nullish(),
}).loose();
export type LocationResponse = z.output<typeof locationResponse>;

/** Field docs of locations, by member path (see docs.ts). */
export const locationDocs = {
  atlas_id: "Id of the atlas the location belongs to.",
  reference_key: "The location's reference key.",
  geometry: "The location's geometry (GeoJSON).",
  properties: "The location's properties, by name.",
  latitude: "Decimal degrees (EPSG 4326); only for locations placed from latitude and longitude columns.",
  longitude: "Decimal degrees (EPSG 4326); only for locations placed from latitude and longitude columns.",
} as const satisfies MemberDocs;

/** Locations are written by their atlas's build; the API only lists them. */
export const location = defineFamily({
  name: "location",
  className: "Location",
  summary: "A location of an atlas, made by the service when the atlas imports its rows: read one with `Location.get` or its lookup.",
  collection: "locations",
  shape: {},
  response: locationResponse,
  docs: locationDocs,
  readOnly: Object.keys(locationResponse.shape),
  references: [{ path: "atlas_id", collection: "atlases", owned: true }],
  creatable: false,
  deletable: false,
  archivable: false,
  builds: false,
});
