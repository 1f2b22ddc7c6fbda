// Places of the synthetic world and the distance arithmetic the location payload and conditions use.

export interface City {
  name: string;
  state: string;
  county: string;
  dma: string;
  metro: string;
  latitude: number;
  longitude: number;
  /** First five-digit postcode of the city; residences take postcodes upwards from it. */
  postcode: number;
}

export const CITIES: readonly City[] = [
  { name: "New York", state: "NY", county: "New York County", dma: "New York", metro: "New York-Newark-Jersey City", latitude: 40.7128, longitude: -74.006, postcode: 10001 },
  { name: "Buffalo", state: "NY", county: "Erie County", dma: "Buffalo", metro: "Buffalo-Cheektowaga", latitude: 42.8864, longitude: -78.8784, postcode: 14201 },
  { name: "Los Angeles", state: "CA", county: "Los Angeles County", dma: "Los Angeles", metro: "Los Angeles-Long Beach-Anaheim", latitude: 34.0522, longitude: -118.2437, postcode: 90001 },
  { name: "San Francisco", state: "CA", county: "San Francisco County", dma: "San Francisco-Oakland-San Jose", metro: "San Francisco-Oakland-Berkeley", latitude: 37.7749, longitude: -122.4194, postcode: 94102 },
  { name: "San Diego", state: "CA", county: "San Diego County", dma: "San Diego", metro: "San Diego-Chula Vista-Carlsbad", latitude: 32.7157, longitude: -117.1611, postcode: 92101 },
  { name: "Chicago", state: "IL", county: "Cook County", dma: "Chicago", metro: "Chicago-Naperville-Elgin", latitude: 41.8781, longitude: -87.6298, postcode: 60601 },
  { name: "Houston", state: "TX", county: "Harris County", dma: "Houston", metro: "Houston-The Woodlands-Sugar Land", latitude: 29.7604, longitude: -95.3698, postcode: 77001 },
  { name: "Austin", state: "TX", county: "Travis County", dma: "Austin", metro: "Austin-Round Rock-Georgetown", latitude: 30.2672, longitude: -97.7431, postcode: 78701 },
  { name: "Dallas", state: "TX", county: "Dallas County", dma: "Dallas-Ft. Worth", metro: "Dallas-Fort Worth-Arlington", latitude: 32.7767, longitude: -96.797, postcode: 75201 },
  { name: "Phoenix", state: "AZ", county: "Maricopa County", dma: "Phoenix", metro: "Phoenix-Mesa-Chandler", latitude: 33.4484, longitude: -112.074, postcode: 85001 },
  { name: "Philadelphia", state: "PA", county: "Philadelphia County", dma: "Philadelphia", metro: "Philadelphia-Camden-Wilmington", latitude: 39.9526, longitude: -75.1652, postcode: 19102 },
  { name: "Pittsburgh", state: "PA", county: "Allegheny County", dma: "Pittsburgh", metro: "Pittsburgh", latitude: 40.4406, longitude: -79.9959, postcode: 15201 },
  { name: "Seattle", state: "WA", county: "King County", dma: "Seattle-Tacoma", metro: "Seattle-Tacoma-Bellevue", latitude: 47.6062, longitude: -122.3321, postcode: 98101 },
  { name: "Denver", state: "CO", county: "Denver County", dma: "Denver", metro: "Denver-Aurora-Lakewood", latitude: 39.7392, longitude: -104.9903, postcode: 80202 },
  { name: "Boston", state: "MA", county: "Suffolk County", dma: "Boston", metro: "Boston-Cambridge-Newton", latitude: 42.3601, longitude: -71.0589, postcode: 2108 },
  { name: "Atlanta", state: "GA", county: "Fulton County", dma: "Atlanta", metro: "Atlanta-Sandy Springs-Alpharetta", latitude: 33.749, longitude: -84.388, postcode: 30303 },
  { name: "Miami", state: "FL", county: "Miami-Dade County", dma: "Miami-Ft. Lauderdale", metro: "Miami-Fort Lauderdale-Pompano Beach", latitude: 25.7617, longitude: -80.1918, postcode: 33101 },
  { name: "Orlando", state: "FL", county: "Orange County", dma: "Orlando-Daytona Beach", metro: "Orlando-Kissimmee-Sanford", latitude: 28.5383, longitude: -81.3792, postcode: 32801 },
  { name: "Minneapolis", state: "MN", county: "Hennepin County", dma: "Minneapolis-St. Paul", metro: "Minneapolis-St. Paul-Bloomington", latitude: 44.9778, longitude: -93.265, postcode: 55401 },
  { name: "Detroit", state: "MI", county: "Wayne County", dma: "Detroit", metro: "Detroit-Warren-Dearborn", latitude: 42.3314, longitude: -83.0458, postcode: 48201 },
  { name: "Portland", state: "OR", county: "Multnomah County", dma: "Portland", metro: "Portland-Vancouver-Hillsboro", latitude: 45.5152, longitude: -122.6784, postcode: 97201 },
  { name: "Nashville", state: "TN", county: "Davidson County", dma: "Nashville", metro: "Nashville-Davidson-Murfreesboro-Franklin", latitude: 36.1627, longitude: -86.7816, postcode: 37201 },
  { name: "Charlotte", state: "NC", county: "Mecklenburg County", dma: "Charlotte", metro: "Charlotte-Concord-Gastonia", latitude: 35.2271, longitude: -80.8431, postcode: 28202 },
  { name: "Columbus", state: "OH", county: "Franklin County", dma: "Columbus, OH", metro: "Columbus", latitude: 39.9612, longitude: -82.9988, postcode: 43215 },
  { name: "Kansas City", state: "MO", county: "Jackson County", dma: "Kansas City", metro: "Kansas City", latitude: 39.0997, longitude: -94.5786, postcode: 64105 },
];

export const METERS_PER_MILE = 1609.344;
const EARTH_RADIUS_M = 6371008.8;
const RAD = Math.PI / 180;

/** Great-circle distance in meters. */
export function haversine(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const dLat = (lat2 - lat1) * RAD;
  const dLon = (lon2 - lon1) * RAD;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** GeoJSON geometry (coordinates longitude first). */
export interface Geometry {
  type: string;
  coordinates: unknown;
}

type Ring = [number, number][];

function polygons(geometry: Geometry): Ring[][] {
  if (geometry.type === "Polygon") return [geometry.coordinates as Ring[]];
  if (geometry.type === "MultiPolygon") return geometry.coordinates as Ring[][];
  return [];
}

function points(geometry: Geometry): [number, number][] {
  if (geometry.type === "Point") return [geometry.coordinates as [number, number]];
  if (geometry.type === "MultiPoint" || geometry.type === "LineString") return geometry.coordinates as [number, number][];
  return polygons(geometry).flatMap((rings) => rings.flat());
}

function insideRing(lon: number, lat: number, ring: Ring): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i] as [number, number];
    const [xj, yj] = ring[j] as [number, number];
    if ((yi > lat) !== (yj > lat) && lon < ((xj - xi) * (lat - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

/** Meters from a point to a place: 0 inside a polygon, else to its nearest vertex (points and outlines). */
export function distanceToGeometry(lat: number, lon: number, geometry: Geometry): number {
  for (const rings of polygons(geometry)) {
    const [outer, ...holes] = rings;
    if (outer && insideRing(lon, lat, outer) && !holes.some((hole) => insideRing(lon, lat, hole))) return 0;
  }
  let best = Infinity;
  for (const [plon, plat] of points(geometry)) best = Math.min(best, haversine(lat, lon, plat, plon));
  return best;
}

/** A closed rectangle around points, as a GeoJSON polygon: the geometry of an aggregated geography. */
export function boundingPolygon(box: { minLat: number; maxLat: number; minLon: number; maxLon: number }): Geometry {
  const { minLat, maxLat, minLon, maxLon } = box;
  const r = (v: number) => Math.round(v * 1e6) / 1e6;
  return {
    type: "Polygon",
    coordinates: [[[r(minLon), r(minLat)], [r(maxLon), r(minLat)], [r(maxLon), r(maxLat)], [r(minLon), r(maxLat)], [r(minLon), r(minLat)]]],
  };
}
