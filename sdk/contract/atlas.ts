// Atlas: a collection of geographic locations imported from a connection; Location: one of them (read-only).
import { z } from "zod";
import { body, expected, column, crossRule, defineFamily, id, issue, name, patchOf, responseOf, type MergePatchOf } from "./common.ts";

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
  properties: z.record(z.string().min(1), z.strictObject({ column_name: column, format: z.string().min(1).optional() })).optional(),
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

export const atlasCreate = body(shape).check(crossRule<z.output<z.ZodObject<typeof shape>>>(["options", "connection_id"], (v, add) => {
  if (v.options.type !== "hosted_csv" && v.connection_id === undefined) {
    add(["connection_id"], `is required for options.type ${v.options.type} (only hosted_csv needs no connection)`);
  }
}));
export const atlasPatch = patchOf(shape);
export const atlasResponse = responseOf(shape, {
  /** Source rows, rows that produced a location, rows that placed none. */
  counts: z.record(z.string(), z.number()).nullish(),
  detected_columns: z.array(z.object({ name: z.string() }).loose()).nullish(),
});

export type AtlasCreate = z.input<typeof atlasCreate>;
export type AtlasPatch = MergePatchOf<AtlasCreate>;
export type AtlasResponse = z.output<typeof atlasResponse>;
export type OutputToLocations = z.input<typeof outputToLocations>;

export const atlas = defineFamily({
  name: "atlas",
  className: "Atlas",
  collection: "atlases",
  create: atlasCreate,
  patch: atlasPatch,
  response: atlasResponse,
  createOnly: ["options.type"],
  references: [{ path: "connection_id", collection: "connections" }],
});

/** A location of an atlas, as listed by GET /locations and /atlases/{id}/locations. */
export const locationResponse = z.object({
  id,
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

/** Locations are written by their atlas's build; the API only lists them. */
export const location = defineFamily({
  name: "location",
  className: "Location",
  collection: "locations",
  create: z.strictObject({}),
  patch: z.strictObject({}),
  response: locationResponse,
  readOnly: Object.keys(locationResponse.shape),
  references: [{ path: "atlas_id", collection: "atlases", owned: true }],
  creatable: false,
  deletable: false,
  archivable: false,
  builds: false,
});
