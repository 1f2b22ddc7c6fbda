// Place (deprecated, superseded by atlases and locations): a named geometry; still accepted.
import { z } from "zod";
import { body, defineFamily, name, patchOf, responseOf, type MergePatchOf } from "./common.ts";

/** Fields beyond name are not shown; a GeoJSON geometry is the obvious one. */
const shape = {
  name,
  geometry: z.record(z.string(), z.unknown()).optional(),
  description: z.string().optional(),
};

export const placeCreate = body(shape);
export const placePatch = patchOf(shape);
export const placeResponse = responseOf(shape, {});
export type PlaceCreate = z.input<typeof placeCreate>;
export type PlacePatch = MergePatchOf<PlaceCreate>;
export type PlaceResponse = z.output<typeof placeResponse>;

/** Deprecated: use atlases. */
export const place = defineFamily({
  name: "place",
  className: "Place",
  collection: "places",
  create: placeCreate,
  patch: placePatch,
  response: placeResponse,
});
