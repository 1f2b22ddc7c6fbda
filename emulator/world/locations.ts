// Atlas locations as the world sees them: points or outlines with a name, a reference key and properties,
// selected by atlas, reference key and property conditions.
import { compileCondition, type Operators, type Scalar } from "./conditions.ts";
import { distanceToGeometry, haversine, type Geometry } from "./geo.ts";
import { docs, num, obj, str, strings, type Resources } from "./resources.ts";

export interface Place {
  atlasId: string;
  name: string;
  referenceKey: string | null;
  properties: Record<string, Scalar>;
  latitude?: number;
  longitude?: number;
  geometry?: Geometry;
}

export interface LocationSelection {
  atlas_ids?: string[] | null;
  location_reference_keys?: string[] | null;
  conditions?: (Operators & { property: string })[] | null;
}

/** Locations of an account; a location is read from `lat`/`lon` members or its GeoJSON geometry. */
export function placesOf(resources: Resources): Place[] {
  return resources.list("locations").flatMap((doc) => {
    const geometry = obj(doc.geometry) as Geometry | undefined;
    const latitude = num(doc.latitude);
    const longitude = num(doc.longitude);
    if ((latitude === undefined || longitude === undefined) && !geometry) return [];
    return [{
      atlasId: str(doc.atlas_id) ?? "", name: str(doc.name) ?? "", referenceKey: str(doc.reference_key) ?? null,
      properties: (obj(doc.properties) ?? {}) as Record<string, Scalar>, latitude, longitude, geometry,
    }];
  });
}

/**
 * The places a selection names. A reference key is unique only within its atlas, so keys are matched in every
 * selected atlas; an atlas that maps no reference key column matches none of them.
 */
export function selectPlaces(resources: Resources, selection: LocationSelection): Place[] {
  const atlasIds = selection.atlas_ids?.length ? new Set(selection.atlas_ids) : undefined;
  const keys = selection.location_reference_keys?.length ? new Set(selection.location_reference_keys) : undefined;
  const mapsKeys = new Set(resources.list("atlases")
    .filter((atlas) => str(obj(atlas.output_to_locations)?.reference_key))
    .map((atlas) => atlas.id as string));
  const conditions = (selection.conditions ?? []).map((c) => ({ property: c.property, test: compileCondition(c) }));
  return placesOf(resources).filter((place) => {
    if (atlasIds && !atlasIds.has(place.atlasId)) return false;
    if (keys && (!mapsKeys.has(place.atlasId) || place.referenceKey === null || !keys.has(place.referenceKey))) return false;
    return conditions.every((c) => c.test(propertyOf(place, c.property)));
  });
}

/** A location's property; `name` and `reference_key` read the location's own name and key. */
function propertyOf(place: Place, property: string): Scalar {
  if (property === "name") return place.name;
  if (property === "reference_key") return place.referenceKey;
  return place.properties[property] ?? null;
}

/** Meters from a point to a place. */
export function distanceTo(place: Place, latitude: number, longitude: number): number {
  if (place.geometry) return distanceToGeometry(latitude, longitude, place.geometry);
  return haversine(latitude, longitude, place.latitude as number, place.longitude as number);
}

export function locationSelectionOf(doc: Record<string, unknown>): LocationSelection {
  const atlasIds = strings(doc.atlas_ids);
  const atlasId = str(doc.atlas_id);
  return {
    atlas_ids: atlasId ? [atlasId, ...atlasIds] : atlasIds,
    location_reference_keys: strings(doc.location_reference_keys),
    conditions: docs(doc.conditions) as unknown as LocationSelection["conditions"],
  };
}
