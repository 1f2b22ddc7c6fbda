// Place (deprecated, superseded by atlases and locations): a named geometry; still accepted.
import { z } from "zod";
import { defineFamily } from "./family.ts";
import { name } from "./fields.ts";
import type { MemberDocs } from "./docs.ts";

/** A postal address a place stands for; every part optional. */
const placeAddress = z.strictObject({
  house_number_and_street: z.string().optional(),
  unit_number: z.string().optional(),
  city: z.string().optional(),
  state: z.string().optional(),
  postcode: z.string().optional(),
});

/** The geometry types of GeoJSON (RFC 7946). */
const GEOMETRY_TYPES = ["Point", "MultiPoint", "LineString", "MultiLineString", "Polygon", "MultiPolygon", "GeometryCollection"];

/** As the live service takes a place: a GeoJSON geometry, addresses, or both. */
const shape = {
  name,
  /** A GeoJSON geometry (`{type: "Point", coordinates: [lon, lat]}`, polygons, ...). */
  geojson: z.record(z.string(), z.unknown())
    .refine((g) => typeof g.type === "string" && GEOMETRY_TYPES.includes(g.type), { message: `must be a GeoJSON geometry: its type one of ${GEOMETRY_TYPES.join(", ")}`, abort: true })
    .optional(),
  addresses: z.array(placeAddress).optional(),
  description: z.string().optional(),
};

/** Field docs of places, by member path (see docs.ts). */
export const placeDocs = {
  geojson: "The place's GeoJSON geometry (`{type: \"Point\", coordinates: [longitude, latitude]}`, a polygon, ...).",
  addresses: "Postal addresses the place stands for; each part optional.",
  "addresses[].house_number_and_street": "House number and street.",
  "addresses[].unit_number": "Unit, suite or apartment number.",
  "addresses[].city": "City.",
  "addresses[].state": "State or region.",
  "addresses[].postcode": "Postal code.",
  description: "What the place is.",
} as const satisfies MemberDocs;

/** Deprecated: use atlases. */
export const place = defineFamily({
  name: "place",
  className: "Place",
  summary: "A named geometry or set of addresses (superseded by atlases and their locations; still accepted).",
  collection: "places",
  deprecated: "Use `Atlas` and its locations; the service keeps places only for compatibility.",
  shape,
  docs: placeDocs,
});
