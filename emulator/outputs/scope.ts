// A scope's output: its population (cohorts unioned, exclusions removed by person and by address) and its
// payload columns, each a function of a person.
import type { Scalar } from "../world/conditions.ts";
import { cohortMembers } from "../world/cohorts.ts";
import { METERS_PER_MILE } from "../world/geo.ts";
import { distanceTo, selectPlaces, type LocationSelection, type Place } from "../world/locations.ts";
import type { World } from "../world/population.ts";
import { docs, num, obj, str, strings, type Doc, type Resources } from "../world/resources.ts";
import { forecastValues, lift, outcomeScores, personaAssignment, recommenderScores } from "../world/scores.ts";
import { singular } from "../nouns.ts";
import * as names from "./names.ts";

/** Person indices of a scope's population, ascending. */
export function scopePopulation(world: World, scope: Doc, resources: Resources): Int32Array {
  const population = obj(scope.population) ?? {};
  const membership = (ids: string[]) => ids.map((id) => {
    const cohort = resources.get("cohorts", id);
    if (!cohort) throw new Error(`cohort ${id} named by the scope's population does not exist`);
    return cohortMembers(world, cohort, resources);
  });
  const included = membership([...new Set([...strings(population.cohort_ids), ...strings(population.include)])]);
  const excluded = membership(strings(population.exclusion_cohort_ids));
  const excludedByAddress = membership(strings(population.exclusion_address_level_cohort_ids));
  const suppressed = new Uint8Array(world.residences.count);
  for (const members of excludedByAddress) {
    for (let p = 0; p < world.size; p++) if (members[p]) suppressed[world.residenceOf[p] as number] = 1;
  }
  const out: number[] = [];
  for (let p = 0; p < world.size; p++) {
    if (!included.some((m) => m[p])) continue;
    if (excluded.some((m) => m[p]) || suppressed[world.residenceOf[p] as number]) continue;
    out.push(p);
  }
  return Int32Array.from(out);
}

export function residenceCount(world: World, people: Int32Array): number {
  const seen = new Uint8Array(world.residences.count);
  let count = 0;
  for (const p of people) {
    const h = world.residenceOf[p] as number;
    if (!seen[h]) {
      seen[h] = 1;
      count++;
    }
  }
  return count;
}

export type Cell = Scalar | Scalar[];

export interface PayloadColumn {
  name: string;
  /** How aggregated deliveries summarize it: numbers averaged, flags counted, lift both. */
  summary: "avg" | "count" | "avg_count" | "none";
  value: (person: number) => Cell;
}

export interface PayloadOptions {
  /** Whether the delivery carries lift columns (the lift rollout rule); default true. */
  lift?: boolean;
  /** Publish the distance as svc_location_distance_m / _mi. */
  humanReadable?: boolean;
  /** Fill address-level people's attributes from their cohabitants. */
  imputeAttributes?: boolean;
}

/** The payload columns of a scope, in the order they are delivered. */
export function payloadColumns(world: World, scope: Doc, resources: Resources, options: PayloadOptions = {}): PayloadColumn[] {
  const payload = obj(scope.payload) ?? {};
  const columns: PayloadColumn[] = [];
  const need = (collection: string, id: string) => {
    const doc = resources.get(collection, id);
    if (!doc) throw new Error(`${singular(collection)} ${id} named by the scope's payload does not exist`);
    return doc;
  };
  for (const id of strings(payload.outcome_ids)) {
    const scores = outcomeScores(world, need("outcomes", id), resources);
    columns.push({ name: names.outcomeColumn(id, "percentile"), summary: "avg", value: (p) => scores.percentile[p] as number });
    columns.push({ name: names.outcomeColumn(id, "probability"), summary: "avg", value: (p) => scores.probability[p] as number });
    if (options.lift !== false) columns.push({ name: names.outcomeColumn(id, "lift"), summary: "avg_count", value: (p) => lift(scores, p) });
  }
  for (const id of strings(payload.persona_set_ids)) {
    const assignment = personaAssignment(world, need("persona_sets", id), resources);
    columns.push({ name: names.personaColumn(id), summary: "none", value: (p) => assignment.personas[assignment.persona[p] as number]?.id ?? null });
  }
  for (const id of strings(payload.recommender_ids)) {
    const scores = recommenderScores(world, need("recommenders", id));
    columns.push({ name: names.recommenderColumn(id, "rank"), summary: "avg", value: (p) => scores.rank[p] as number });
    columns.push({ name: names.recommenderColumn(id, "uncalibrated_probability"), summary: "avg", value: (p) => scores.uncalibratedProbability[p] as number });
  }
  for (const id of strings(payload.forecast_ids)) {
    const values = forecastValues(world, resources.get("forecasts", id) ?? { id });
    columns.push({ name: names.forecastColumn(id), summary: "avg", value: (p) => values[p] as number });
  }
  for (const id of [...strings(payload.cohort_ids), ...docs(payload.cohorts).map((c) => str(c.cohort_id) ?? str(c.id) ?? "")].filter(Boolean)) {
    const members = cohortMembers(world, need("cohorts", id), resources);
    columns.push({ name: names.cohortColumn(id), summary: "count", value: (p) => members[p] === 1 });
  }
  for (const attribute of attributeNames(payload.attributes)) {
    columns.push({ name: attribute, summary: "none", value: attributeValue(world, attribute, options.imputeAttributes === true) });
  }
  const location = obj(payload.location);
  if (location) columns.push(...locationColumns(world, location, resources, options.humanReadable === true));
  return columns;
}

function attributeNames(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((a) => (typeof a === "string" ? [a] : str(obj(a)?.name) ?? str(obj(a)?.attribute_name) ?? []));
}

/** A person's attribute; address-level people have none of their own and may borrow a cohabitant's. */
function attributeValue(world: World, attribute: string, impute: boolean): (person: number) => Scalar {
  const byResidence = new Map<number, Scalar>();
  if (impute) {
    for (let p = 0; p < world.size; p++) {
      const h = world.residenceOf[p] as number;
      const v = world.trait(attribute, p);
      if (world.addressLevel[p] === 0 && v !== null && !byResidence.has(h)) byResidence.set(h, v);
    }
  }
  return (p) => {
    if (world.addressLevel[p] === 0) return world.trait(attribute, p);
    return impute ? byResidence.get(world.residenceOf[p] as number) ?? null : null;
  };
}

export interface LocationMatch {
  distances: number[];
  names: string[];
  referenceKeys: (string | null)[];
}

/**
 * Locations each residence matches under a scope's location payload: within [min_distance, max_distance]
 * meters, nearest first; `nearest` keeps the first.
 */
export function locationMatcher(world: World, location: Doc, resources: Resources): (person: number) => LocationMatch | null {
  const places: Place[] = selectPlaces(resources, {
    atlas_ids: strings(location.atlas_ids), location_reference_keys: strings(location.location_reference_keys),
    conditions: docs(location.conditions) as unknown as LocationSelection["conditions"],
  });
  const min = num(location.min_distance) ?? 0;
  const max = num(location.max_distance) ?? Infinity;
  const nearestOnly = (str(location.selection) ?? "nearest") === "nearest";
  const miles = location.distance_output_units === "miles";
  const cache = new Map<number, LocationMatch | null>();
  return (person) => {
    const h = world.residenceOf[person] as number;
    if (cache.has(h)) return cache.get(h) ?? null;
    const lat = world.residences.latitude[h] as number, lon = world.residences.longitude[h] as number;
    let found = places.map((place) => ({ place, meters: distanceTo(place, lat, lon) }))
      .filter((m) => m.meters >= min && m.meters <= max)
      .sort((a, b) => a.meters - b.meters);
    if (nearestOnly) found = found.slice(0, 1);
    const match = found.length === 0 ? null : {
      distances: found.map((m) => Math.round((miles ? m.meters / METERS_PER_MILE : m.meters) * 100) / 100),
      names: found.map((m) => m.place.name),
      referenceKeys: found.map((m) => m.place.referenceKey),
    };
    // Residences repeat within a delivery; the cache is bounded so a million-row export stays small.
    if (cache.size > 100_000) cache.clear();
    cache.set(h, match);
    return match;
  };
}

function locationColumns(world: World, location: Doc, resources: Resources, humanReadable: boolean): PayloadColumn[] {
  const match = locationMatcher(world, location, resources);
  const all = location.selection === "all";
  const units = location.distance_output_units === "miles" ? "miles" : "meters";
  const pick = <T extends Scalar>(values: (m: LocationMatch) => T[]) => (p: number): Cell => {
    const m = match(p);
    if (!m) return null;
    return all ? values(m) : (values(m)[0] ?? null);
  };
  return [
    { name: humanReadable ? names.humanReadableDistance(units) : names.LOCATION_DISTANCE, summary: all ? "none" : "avg", value: pick((m) => m.distances) },
    { name: names.LOCATION_NAME, summary: "none", value: pick((m) => m.names) },
    { name: names.LOCATION_REFERENCE_KEY, summary: "none", value: pick((m) => m.referenceKeys) },
  ];
}
