// What a target delivers: the scope's population after the target's filter and limit, laid out by its
// representation mode, as a header and a lazily produced sequence of rows.
import { createHash } from "node:crypto";
import { compileCondition, type Operators, type Scalar } from "../world/conditions.ts";
import { cohortMembers } from "../world/cohorts.ts";
import { boundingPolygon } from "../world/geo.ts";
import type { World } from "../world/population.ts";
import { hashText, unit } from "../world/random.ts";
import { docs, num, obj, str, strings, type Doc, type Resources } from "../world/resources.ts";
import { outcomeScores, personaAssignment, recommenderScores } from "../world/scores.ts";
import { singular } from "../nouns.ts";
import * as names from "./names.ts";
import { payloadColumns, scopePopulation, type Cell, type PayloadColumn } from "./scope.ts";

/** Rows a preview scope delivers (and what POST /targets/{id}/preview sends). */
export const PREVIEW_ROW_LIMIT = 1000;

/** When the default structure transform gained the lift column: targets pinned before it lack the column. */
export const LIFT_COLUMN_RELEASED_AT = "2025-06-01T00:00:00Z";

export type Geography = "carrier_route" | "census_block_group" | "census_tract" | "county" | "dma" | "metro" | "postcode" | "state";
export const GEOGRAPHIES: readonly Geography[] = ["carrier_route", "census_block_group", "census_tract", "county", "dma", "metro", "postcode", "state"];

export interface Table {
  columns: string[];
  rows: () => Iterable<Cell[]>;
  /** The people the rows describe (after filter and limit). */
  people: Int32Array;
}

export interface TableOptions {
  /** Cap on delivered rows; default: PREVIEW_ROW_LIMIT for a preview scope, none otherwise. */
  rowLimit?: number;
}

/**
 * Lift rollout: a named preset reads the latest default rules (lift included); the default structure transform
 * stays pinned to what it was when the target was created (or re-pinned).
 */
export function carriesLift(target: Doc): boolean {
  const representation = obj(target.representation) ?? {};
  if (str(representation.transform_preset) ?? str(target.transform_preset)) return true;
  const pinned = str(target.transform_pinned_at) ?? str(target.created_at);
  return pinned === undefined || Date.parse(pinned) >= Date.parse(LIFT_COLUMN_RELEASED_AT);
}

export function limitOf(target: Doc): Doc | undefined {
  return obj(target.limit) ?? obj(target.count);
}

/** The people a target delivers, in delivery order: scope population, then filter, then limit. */
export function targetPeople(world: World, target: Doc, scope: Doc, resources: Resources): Int32Array {
  const population = scopePopulation(world, scope, resources);
  const keep = compileFilter(world, obj(target.filter), resources);
  let people = keep ? population.filter(keep) : population;
  const limit = limitOf(target);
  if (limit) people = applyLimit(world, people, limit, resources);
  return people;
}

function applyLimit(world: World, people: Int32Array, limit: Doc, resources: Resources): Int32Array {
  const outcomeId = str(limit.outcome_id);
  const outcome = outcomeId ? resources.get("outcomes", outcomeId) : undefined;
  if (outcomeId && !outcome) throw new Error(`limit.outcome_id: outcome ${outcomeId} does not exist`);
  const scores = outcome ? outcomeScores(world, outcome, resources) : undefined;
  const method = str(limit.method) ?? (num(limit.threshold) !== undefined ? "row_count" : "percentile");
  if (method === "percentile") {
    if (!scores) throw new Error("limit.outcome_id is required for a percentile limit");
    const min = num(limit.percentile_min) ?? num(limit.min) ?? 1;
    const max = num(limit.percentile_max) ?? num(limit.max) ?? 100;
    return people.filter((p) => (scores.percentile[p] as number) >= min && (scores.percentile[p] as number) <= max);
  }
  const threshold = Math.max(0, Math.floor(num(limit.threshold) ?? num(limit.value) ?? people.length));
  if (!scores) return people.slice(0, threshold);
  const ascending = limit.direction === "asc" || limit.direction === "bottom";
  const order = Array.from(people).sort((a, b) => {
    const d = (scores.probability[a] as number) - (scores.probability[b] as number);
    return (ascending ? d : -d) || a - b;
  });
  return Int32Array.from(order.slice(0, threshold));
}

type FilterEntry = Operators & Doc;

/** The target filter as a test of a person, or undefined when it filters nothing. */
export function compileFilter(world: World, filter: Doc | undefined, resources: Resources): ((person: number) => boolean) | undefined {
  if (!filter) return undefined;
  const tests: ((p: number) => boolean)[] = [];
  const entries = (key: string) => docs(filter[key]) as FilterEntry[];
  const need = (collection: string, id: unknown, field: string) => {
    const doc = typeof id === "string" ? resources.get(collection, id) : undefined;
    if (!doc) throw new Error(`filter.${field}: ${singular(collection)} ${String(id)} does not exist`);
    return doc;
  };
  const add = (value: (p: number) => Scalar, condition: Operators) => {
    const test = compileCondition(condition);
    tests.push((p) => test(value(p)));
  };
  for (const e of entries("cohort_membership")) {
    const members = cohortMembers(world, need("cohorts", e.cohort_id, "cohort_membership"), resources);
    add((p) => members[p] === 1, e);
  }
  for (const [key, measure] of [["outcome_percentile", "percentile"], ["outcome_score", "percentile"], ["outcome_probability", "probability"]] as const) {
    for (const e of entries(key)) {
      const scores = outcomeScores(world, need("outcomes", e.outcome_id, key), resources);
      add((p) => (measure === "percentile" ? scores.percentile[p] : scores.probability[p]) as number, e);
    }
  }
  for (const e of entries("persona")) {
    const assignment = personaAssignment(world, need("persona_sets", e.persona_set_id, "persona"), resources);
    const condition = str(e.persona_id) ? { ...e, _eq: e.persona_id as string } : e;
    add((p) => assignment.personas[assignment.persona[p] as number]?.id ?? null, condition);
  }
  for (const [key, field] of [["recommender_rank", "rank"], ["recommender_uncalibrated_probability", "uncalibratedProbability"]] as const) {
    for (const e of entries(key)) {
      const scores = recommenderScores(world, need("recommenders", e.recommender_id, key));
      add((p) => scores[field][p] as number, e);
    }
  }
  for (const key of ["trait", "attributes", "attribute"]) {
    for (const e of entries(key)) {
      const name = str(e.name) ?? str(e.trait_name) ?? str(e.attribute_name) ?? "";
      add((p) => world.trait(name, p), e);
    }
  }
  return tests.length ? (p) => tests.every((t) => t(p)) : undefined;
}

/** The table a target delivers. */
export function targetTable(world: World, target: Doc, scope: Doc, resources: Resources, options: TableOptions = {}): Table {
  const representation = obj(target.representation) ?? {};
  const mode = str(representation.mode) ?? "identified";
  const impute = strings(representation.impute_payload).includes("attributes");
  const payload = payloadColumns(world, scope, resources, {
    lift: carriesLift(target), humanReadable: target.human_readable === true, imputeAttributes: impute,
  });
  const people = targetPeople(world, target, scope, resources);
  const rowLimit = options.rowLimit ?? (scope.preview === true ? PREVIEW_ROW_LIMIT : Infinity);
  const table = layout(world, mode, representation, payload, people, resources);
  return { columns: table.columns, people, rows: () => take(table.rows(), rowLimit) };
}

function* take<T>(rows: Iterable<T>, limit: number): Generator<T> {
  if (limit <= 0) return;
  let n = 0;
  for (const row of rows) {
    yield row;
    if (++n >= limit) return;
  }
}

function layout(world: World, mode: string, representation: Doc, payload: PayloadColumn[], people: Int32Array, resources: Resources): Omit<Table, "people"> {
  const values = (p: number) => payload.map((c) => c.value(p));
  const payloadNames = payload.map((c) => c.name);
  const id = world.identity;
  const address = (p: number) => {
    const h = world.residenceOf[p] as number;
    const city = world.cityOf(p);
    return [id.houseNumberAndStreet(h), city.name, city.state, world.postcodeOf(p)];
  };
  switch (mode) {
    case "identified": {
      if (representation.aggregate === "residence") {
        return {
          columns: [...names.ADDRESS_IDENTITY, ...payloadNames],
          rows: function* () {
            for (const p of firstPerResidence(world, people)) yield [...address(p), ...values(p)];
          },
        };
      }
      const multiple = representation.output_multiple_identities === true;
      return {
        columns: [...names.PERSON_IDENTITY, ...payloadNames],
        rows: function* () {
          for (const p of people) {
            const row = [id.firstName(p), id.lastName(p), ...address(p), id.email(p), id.phone(p), ...values(p)];
            yield row;
            const alt = multiple ? id.altEmail(p) : null;
            if (alt) yield row.map((cell, i) => (i === 6 ? alt : cell));
          }
        },
      };
    }
    case "hashed":
      return {
        columns: [...names.HASHED_IDENTITY, ...payloadNames],
        rows: function* () {
          for (const p of people) {
            const email = id.email(p), phone = id.phone(p);
            yield [email && sha256(normalizeEmail(email)), phone && sha256(normalizePhone(phone)), sha256(address(p).join("|").toLowerCase()), ...values(p)];
          }
        },
      };
    case "referenced": {
      const reference = obj(representation.reference) ?? {};
      const datasetId = str(reference.dataset_id) ?? str(representation.reference_dataset_id);
      const column = str(reference.column_name) ?? "reference_key";
      if (!datasetId || !resources.get("datasets", datasetId)) throw new Error(`representation.reference.dataset_id: dataset ${String(datasetId)} does not exist`);
      const multiple = representation.output_multiple_identities === true;
      return {
        columns: [column, ...payloadNames],
        rows: function* () {
          for (const p of people) {
            for (const key of referenceKeys(datasetId, p, multiple)) yield [key, ...values(p)];
          }
        },
      };
    }
    case "aggregated":
      return aggregated(world, representation, payload, people);
    default:
      throw new Error(`representation.mode: "${mode}" is not one of identified, hashed, referenced, aggregated`);
  }
}

/** The dataset's reference keys of a person: most people have one, some two, a fifth are not in the dataset. */
export function referenceKeys(datasetId: string, person: number, multiple: boolean): string[] {
  const seed = hashText(datasetId);
  const u = unit(seed, person);
  if (u < 0.2) return [];
  const key = (n: number) => `${(hashText(datasetId) % 1000).toString(36).toUpperCase()}-${String(person * 2 + n).padStart(8, "0")}`;
  return multiple && u > 0.9 ? [key(0), key(1)] : [key(0)];
}

export function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
export const normalizeEmail = (email: string) => email.trim().toLowerCase();
export const normalizePhone = (phone: string) => phone.replace(/\D/g, "").replace(/^1(?=\d{10}$)/, "");

function firstPerResidence(world: World, people: Int32Array): number[] {
  const seen = new Uint8Array(world.residences.count);
  const out: number[] = [];
  for (const p of people) {
    const h = world.residenceOf[p] as number;
    if (!seen[h]) {
      seen[h] = 1;
      out.push(p);
    }
  }
  return out;
}

/** The geography a person's residence falls in. */
export function geographyOf(world: World, person: number, geography: Geography): string {
  const city = world.cityOf(person);
  const postcode = world.postcodeOf(person);
  const h = world.residenceOf[person] as number;
  const tract = `${postcode}${String(Math.abs(Math.round((world.residences.latitude[h] as number) * 40)) % 100).padStart(2, "0")}`;
  switch (geography) {
    case "state": return city.state;
    case "postcode": return postcode;
    case "county": return `${city.county}, ${city.state}`;
    case "dma": return city.dma;
    case "metro": return city.metro;
    case "census_tract": return tract;
    case "census_block_group": return `${tract}${Math.abs(Math.round((world.residences.longitude[h] as number) * 80)) % 4 + 1}`;
    case "carrier_route": return `${postcode}C${String(((world.residences.houseNumber[h] as number) % 40) + 1).padStart(3, "0")}`;
  }
}

function aggregated(world: World, representation: Doc, payload: PayloadColumn[], people: Int32Array): Omit<Table, "people"> {
  const geography = (str(representation.aggregate) ?? "state") as Geography;
  if (!GEOGRAPHIES.includes(geography)) throw new Error(`representation.aggregate: "${geography}" is not one of ${GEOGRAPHIES.join(", ")}`);
  const geometry = representation.include_geometry === true;
  const summarized = payload.filter((c) => c.summary !== "none");
  const columns = [geography, "count"];
  for (const c of summarized) {
    if (c.summary === "count" || c.summary === "avg_count") columns.push(`count_${c.name}`);
    if (c.summary === "avg" || c.summary === "avg_count") columns.push(`avg_${c.name}`);
  }
  if (geometry) columns.push("geometry");
  return {
    columns,
    rows: function* () {
      interface Group { people: number; counts: number[]; sums: number[]; box: { minLat: number; maxLat: number; minLon: number; maxLon: number } }
      const groups = new Map<string, Group>();
      for (const p of people) {
        const key = geographyOf(world, p, geography);
        let g = groups.get(key);
        if (!g) {
          g = { people: 0, counts: summarized.map(() => 0), sums: summarized.map(() => 0), box: { minLat: Infinity, maxLat: -Infinity, minLon: Infinity, maxLon: -Infinity } };
          groups.set(key, g);
        }
        g.people++;
        summarized.forEach((c, i) => {
          const v: Cell = c.value(p);
          if (typeof v === "number") {
            g.counts[i] = (g.counts[i] as number) + 1;
            g.sums[i] = (g.sums[i] as number) + v;
          } else if (v === true) {
            g.counts[i] = (g.counts[i] as number) + 1;
          }
        });
        const h = world.residenceOf[p] as number;
        const lat = world.residences.latitude[h] as number, lon = world.residences.longitude[h] as number;
        g.box.minLat = Math.min(g.box.minLat, lat); g.box.maxLat = Math.max(g.box.maxLat, lat);
        g.box.minLon = Math.min(g.box.minLon, lon); g.box.maxLon = Math.max(g.box.maxLon, lon);
      }
      for (const key of [...groups.keys()].sort()) {
        const g = groups.get(key) as Group;
        const row: Cell[] = [key, g.people];
        summarized.forEach((c, i) => {
          const count = g.counts[i] as number;
          if (c.summary === "count" || c.summary === "avg_count") row.push(count);
          if (c.summary === "avg" || c.summary === "avg_count") row.push(count ? Math.round(((g.sums[i] as number) / count) * 1e4) / 1e4 : null);
        });
        if (geometry) row.push(JSON.stringify(boundingPolygon(g.box)));
        yield row;
      }
    },
  };
}

export type { Cell };

/** A cell as delivered text: arrays as JSON, null as empty. */
export function cellText(cell: Cell): string {
  if (cell === null) return "";
  if (Array.isArray(cell)) return JSON.stringify(cell);
  return String(cell);
}
