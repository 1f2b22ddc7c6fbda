// Cohort membership computed from a cohort's definition: stream conditions with counts, values and recency,
// trait and attribute conditions, and location conditions (with invert). A cohort with no condition holds
// everyone.
import { valueAt, type ValueType } from "./columns.ts";
import { compileCondition, type Operators } from "./conditions.ts";
import { distanceTo, locationSelectionOf, selectPlaces } from "./locations.ts";
import type { Stream, StreamProperty, World } from "./population.ts";
import { docs, num, obj, str, type Doc, type Resources } from "./resources.ts";

type NamedCondition = Operators & { name?: string; property?: string; attribute_name?: string };

/** What a cohort's membership depends on, as text: the key its results are remembered by. */
export function cohortDefinition(cohort: Doc): string {
  return JSON.stringify([cohort.stream_name, cohort.stream_conditions, cohort.traits, cohort.attributes, cohort.recency,
    cohort.min_count, cohort.max_count, cohort.min_value, cohort.max_value, cohort.location_conditions ?? cohort.place_conditions]);
}

/** Membership flags (1 = member) of a cohort, memoized on the world by the cohort's definition. */
export function cohortMembers(world: World, cohort: Doc, resources: Resources): Uint8Array {
  const definition = cohortDefinition(cohort);
  // Locations change under a cohort without its definition changing: such cohorts are not memoized.
  if (docs(cohort.location_conditions ?? cohort.place_conditions).length > 0) return computeMembers(world, cohort, resources);
  return world.remember(`cohort:${definition}`, () => computeMembers(world, cohort, resources));
}

function computeMembers(world: World, cohort: Doc, resources: Resources): Uint8Array {
  const members = new Uint8Array(world.size).fill(1);
  const streamName = str(cohort.stream_name);
  if (streamName) applyStream(world, cohort, streamName, members, resources);
  applyTraits(world, docs(cohort.traits) as NamedCondition[], members, (name) => name);
  applyTraits(world, docs(cohort.attributes) as NamedCondition[], members, (name) => (world.traits.has(name) ? name : `ig/${name}`));
  for (const condition of docs(cohort.location_conditions ?? cohort.place_conditions)) applyLocation(world, condition, resources, members);
  return members;
}

/** Properties an account's stream declares (`properties: {name: {type}}`), which its generated events then carry. */
export function declaredProperties(resources: Resources, streamName: string): StreamProperty[] {
  const doc = resources.list("streams").find((s) => s.name === streamName);
  const properties = obj(doc?.properties) ?? {};
  const TYPES: readonly ValueType[] = ["double", "long", "string", "boolean", "date"];
  return Object.entries(properties).map(([name, p]) => {
    const type = str(obj(p)?.type) as ValueType | undefined;
    return { name, type: type && TYPES.includes(type) ? type : "string" };
  });
}

export function streamOf(world: World, streamName: string, resources: Resources): Stream {
  return world.stream(streamName, declaredProperties(resources, streamName));
}

function applyStream(world: World, cohort: Doc, streamName: string, members: Uint8Array, resources: Resources): void {
  const stream = streamOf(world, streamName, resources);
  const conditions = (docs(cohort.stream_conditions) as NamedCondition[]).map((c) => {
    const name = c.property ?? c.name ?? "";
    const col = stream.columns.get(name);
    return { col, test: compileCondition(c) };
  });
  const dates = stream.columns.get("datetime");
  const recency = obj(cohort.recency);
  const occurrence = str(recency?.occurrence) ?? "last";
  const minDays = num(recency?.min_days);
  const maxDays = num(recency?.max_days);
  const minCount = num(cohort.min_count) ?? 1;
  const maxCount = num(cohort.max_count);
  const minValue = num(cohort.min_value);
  const maxValue = num(cohort.max_value);
  const values = stream.columns.get("value");
  for (let p = 0; p < world.size; p++) {
    if (!members[p]) continue;
    let count = 0, sum = 0, first = Infinity, last = -Infinity;
    for (let e = stream.offsets[p] as number; e < (stream.offsets[p + 1] as number); e++) {
      if (!conditions.every((c) => c.test(c.col ? valueAt(c.col, e) : null))) continue;
      count++;
      if (values) sum += Number.isNaN(values.data[e]) ? 0 : (values.data[e] as number);
      const day = dates ? (dates.data[e] as number) : NaN;
      if (!Number.isNaN(day)) {
        first = Math.min(first, day);
        last = Math.max(last, day);
      }
    }
    let member = count >= minCount && (maxCount === undefined || count <= maxCount)
      && (minValue === undefined || sum >= minValue) && (maxValue === undefined || sum <= maxValue);
    if (member && recency && count > 0) {
      const since = world.today - (occurrence === "first" ? first : last);
      member = Number.isFinite(since) && (minDays === undefined || since >= minDays) && (maxDays === undefined || since <= maxDays);
    }
    if (!member) members[p] = 0;
  }
}

function applyTraits(world: World, conditions: NamedCondition[], members: Uint8Array, column: (name: string) => string): void {
  if (conditions.length === 0) return;
  const compiled = conditions.map((c) => ({
    col: world.traits.get(column(c.name ?? c.attribute_name ?? c.property ?? "")), test: compileCondition(c),
  }));
  for (let p = 0; p < world.size; p++) {
    if (members[p] && !compiled.every((c) => c.test(c.col ? valueAt(c.col, p) : null))) members[p] = 0;
  }
}

/** People whose residence lies within `distance` meters of a selected location (or, with invert, of none). */
function applyLocation(world: World, condition: Doc, resources: Resources, members: Uint8Array): void {
  const places = selectPlaces(resources, locationSelectionOf(condition));
  const reach = num(condition.distance) ?? num(condition.max_distance) ?? 0;
  const invert = condition.invert === true;
  const { latitude, longitude } = world.residences;
  const near = new Int8Array(world.residences.count).fill(-1);
  for (let p = 0; p < world.size; p++) {
    if (!members[p]) continue;
    const h = world.residenceOf[p] as number;
    if (near[h] === -1) {
      near[h] = places.some((place) => distanceTo(place, latitude[h] as number, longitude[h] as number) <= reach) ? 1 : 0;
    }
    if ((near[h] === 1) === invert) members[p] = 0;
  }
}

type MemberCounts = { population_count: number; residence_count: number };
/** Counts by membership: a memoized membership is shared and never changed, so it is counted once. */
const counted = new WeakMap<Uint8Array, MemberCounts>();

/** population_count and residence_count of a membership. */
export function countMembers(world: World, members: Uint8Array): MemberCounts {
  let counts = counted.get(members);
  if (!counts) counted.set(members, (counts = count(world, members)));
  return { ...counts };
}

function count(world: World, members: Uint8Array): MemberCounts {
  const seen = new Uint8Array(world.residences.count);
  let people = 0, residences = 0;
  for (let p = 0; p < world.size; p++) {
    if (!members[p]) continue;
    people++;
    const h = world.residenceOf[p] as number;
    if (!seen[h]) {
      seen[h] = 1;
      residences++;
    }
  }
  return { population_count: people, residence_count: residences };
}
