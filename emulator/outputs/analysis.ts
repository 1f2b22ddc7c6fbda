// Analyses of scopes, targets, cohorts, outcomes, persona sets, streams and traits, computed from the same
// synthetic population the deliveries come from.
import { valueAt, type Column } from "../world/columns.ts";
import { isoDay, type Scalar } from "../world/conditions.ts";
import { cohortMembers, countMembers, streamOf } from "../world/cohorts.ts";
import type { World } from "../world/population.ts";
import { obj, str, strings, type Doc, type Resources } from "../world/resources.ts";
import { forecastValues, outcomeScores, personaAssignment, RECOMMENDER_RANKS, recommenderScores, type OutcomeScores } from "../world/scores.ts";
import { outcomeBias } from "./bias.ts";
import { residenceCount, scopePopulation } from "./scope.ts";
import { geographyOf, targetPeople } from "./target.ts";

/** Past this many distinct postcodes, the scope geography leaves postcodes out. */
export const MAX_GEOGRAPHY_POSTCODES = 250;

export interface Bin {
  min: number;
  max: number;
  count: number;
}
export interface CategoryCount {
  value: string;
  count: number;
}

const round = (v: number, digits = 4) => Math.round(v * 10 ** digits) / 10 ** digits;

/** Counts of values in `bins` equal-width bins over their range (nulls left out). */
export function numericBins(values: Iterable<number>, bins = 10): Bin[] {
  const list = Float64Array.from([...values].filter((v) => !Number.isNaN(v)));
  if (list.length === 0) return [];
  let lo = Infinity, hi = -Infinity;
  for (const v of list) {
    lo = Math.min(lo, v);
    hi = Math.max(hi, v);
  }
  const width = hi > lo ? (hi - lo) / bins : 1;
  const out = Array.from({ length: hi > lo ? bins : 1 }, (_, i) => ({ min: round(lo + i * width), max: round(i === bins - 1 || hi === lo ? hi : lo + (i + 1) * width), count: 0 }));
  for (const v of list) (out[Math.min(out.length - 1, Math.floor((v - lo) / width))] as Bin).count++;
  return out;
}

export function categoryCounts(values: Iterable<Scalar>): CategoryCount[] {
  const counts = new Map<string, number>();
  for (const v of values) if (v !== null) counts.set(String(v), (counts.get(String(v)) ?? 0) + 1);
  return [...counts].map(([value, count]) => ({ value, count })).sort((a, b) => b.count - a.count || a.value.localeCompare(b.value));
}

function* over<T>(people: Iterable<number>, f: (p: number) => T): Generator<T> {
  for (const p of people) yield f(p);
}
const everyone = (world: World) => ({ [Symbol.iterator]: function* () { for (let p = 0; p < world.size; p++) yield p; } });

/** One dimension of people: numeric bins, or counts per category. */
function dimension(world: World, name: string, people: Iterable<number>): { bins?: Bin[]; values?: CategoryCount[] } {
  const col = world.traits.get(name);
  if (!col) return { bins: [] };
  return col.type === "string" || col.type === "boolean"
    ? { values: categoryCounts(over(people, (p) => valueAt(col, p))) }
    : { bins: numericBins(over(people, (p) => col.data[p] as number)) };
}

const PROBABILITY_BINS = Array.from({ length: 10 }, (_, i) => ({ min: i / 10, max: (i + 1) / 10 }));

/** GET /scopes/{id}/analysis: distribution of each payload resource over the scope and the eligible world. */
export function scopeAnalysis(world: World, scope: Doc, resources: Resources): Doc {
  const people = scopePopulation(world, scope, resources);
  const payload = obj(scope.payload) ?? {};
  const scopeResidences = residenceCount(world, people);
  const shares = (value: (p: number) => number, bins: { min: number; max: number }[]) => {
    const count = (from: Iterable<number>, total: number, byResidence: boolean) => {
      const out = bins.map(() => 0);
      const seen = new Set<number>();
      for (const p of from) {
        if (byResidence) {
          const h = world.residenceOf[p] as number;
          if (seen.has(h)) continue;
          seen.add(h);
        }
        const v = value(p);
        const i = bins.findIndex((b, k) => v >= b.min && (v < b.max || k === bins.length - 1));
        if (i >= 0) out[i] = (out[i] as number) + 1;
      }
      return out.map((n) => (total ? round(n / total) : 0));
    };
    const scopeShare = count(people, people.length, false), eligibleShare = count(everyone(world), world.size, false);
    const scopeRes = count(people, scopeResidences, true), eligibleRes = count(everyone(world), world.residences.count, true);
    return bins.map((b, i) => ({
      bin_min: b.min, bin_max: b.max, scope: scopeShare[i], eligible: eligibleShare[i], scope_residences: scopeRes[i], eligible_residences: eligibleRes[i],
    }));
  };
  const distributions: Doc[] = [];
  for (const id of strings(payload.outcome_ids)) {
    const outcome = resources.get("outcomes", id);
    if (!outcome) continue;
    const s = outcomeScores(world, outcome, resources);
    distributions.push({ resource_type: "outcomes", resource_id: id, distribution: shares((p) => s.probability[p] as number, PROBABILITY_BINS) });
  }
  for (const id of strings(payload.persona_set_ids)) {
    const set = resources.get("persona_sets", id);
    if (!set) continue;
    const a = personaAssignment(world, set, resources);
    const bins = a.personas.map((_, k) => ({ min: k, max: k + 1 }));
    distributions.push({
      resource_type: "persona_sets", resource_id: id,
      distribution: shares((p) => a.persona[p] as number, bins).map(({ bin_min, bin_max: _max, ...rest }) => ({ persona_id: a.personas[bin_min]?.id, ...rest })),
    });
  }
  for (const id of strings(payload.recommender_ids)) {
    const r = recommenderScores(world, { id });
    distributions.push({ resource_type: "recommenders", resource_id: id, distribution: shares((p) => r.uncalibratedProbability[p] as number, PROBABILITY_BINS) });
  }
  for (const id of strings(payload.forecast_ids)) {
    const values = forecastValues(world, { id });
    const range = numericBins(over(people, (p) => values[p] as number)).map(({ min, max }) => ({ min, max }));
    distributions.push({ resource_type: "forecasts", resource_id: id, distribution: shares((p) => values[p] as number, range) });
  }
  return {
    scope_id: scope.id,
    scope_individuals_count: people.length,
    scope_residences_count: scopeResidences,
    eligible_individuals_count: world.size,
    eligible_residences_count: world.residences.count,
    payload: distributions,
  };
}

/**
 * GET /scopes/{id}/analysis/geography: people and residences per state and postcode, with counts of each payload
 * cohort; postcodes left out past 250 distinct; both empty objects until the scope has built.
 */
export function scopeGeography(world: World, scope: Doc, resources: Resources, built: boolean): Doc {
  if (!built) return { states: {}, postcodes: {} };
  const people = scopePopulation(world, scope, resources);
  const cohortIds = strings(obj(scope.payload)?.cohort_ids);
  const cohorts = cohortIds.map((id) => {
    const doc = resources.get("cohorts", id);
    return doc ? cohortMembers(world, doc, resources) : new Uint8Array(world.size);
  });
  const tally = (geography: "state" | "postcode") => {
    const out: Record<string, { individuals: number; residences: number; cohorts: Record<string, number> }> = {};
    const seen = new Set<number>();
    for (const p of people) {
      const key = geographyOf(world, p, geography);
      const entry = (out[key] ??= { individuals: 0, residences: 0, cohorts: Object.fromEntries(cohortIds.map((id) => [id, 0])) });
      entry.individuals++;
      const h = world.residenceOf[p] as number;
      if (!seen.has(h)) {
        seen.add(h);
        entry.residences++;
      }
      cohorts.forEach((m, i) => { if (m[p]) entry.cohorts[cohortIds[i] as string] = (entry.cohorts[cohortIds[i] as string] ?? 0) + 1; });
    }
    return out;
  };
  const postcodes = tally("postcode");
  return Object.keys(postcodes).length > MAX_GEOGRAPHY_POSTCODES ? { states: tally("state") } : { states: tally("state"), postcodes };
}

/** Area under the ROC curve of scores against who attained (ties counted half). */
function auc(scores: OutcomeScores, attained: Uint8Array | undefined, size: number): number | null {
  if (!attained) return null;
  const order = Array.from({ length: size }, (_, p) => p).sort((a, b) => (scores.probability[a] as number) - (scores.probability[b] as number));
  let positives = 0, rankSum = 0;
  for (let i = 0; i < order.length;) {
    let j = i;
    while (j < order.length && scores.probability[order[j] as number] === scores.probability[order[i] as number]) j++;
    const rank = (i + j + 1) / 2;
    for (let k = i; k < j; k++) if (attained[order[k] as number]) { positives++; rankSum += rank; }
    i = j;
  }
  const negatives = size - positives;
  if (positives === 0 || negatives === 0) return null;
  return round((rankSum - (positives * (positives + 1)) / 2) / (positives * negatives));
}

function attainedBy(world: World, outcome: Doc, resources: Resources): Uint8Array | undefined {
  const id = str(outcome.attainment_cohort_id);
  const doc = id ? resources.get("cohorts", id) : undefined;
  return doc ? cohortMembers(world, doc, resources) : undefined;
}

/** Deciles of an outcome: people, mean probability and lift over the conversion rate. */
function strategies(scores: OutcomeScores, people: Iterable<number>): Doc[] {
  const out = Array.from({ length: 10 }, (_, i) => ({ percentile_min: i * 10 + 1, percentile_max: (i + 1) * 10, people: 0, sum: 0 }));
  for (const p of people) {
    const d = out[Math.min(9, Math.floor(((scores.percentile[p] as number) - 1) / 10))] as (typeof out)[number];
    d.people++;
    d.sum += scores.probability[p] as number;
  }
  return out.map(({ sum, ...d }) => ({
    ...d, expected_conversions: round(sum, 2), lift: d.people && scores.conversionRate ? round(sum / d.people / scores.conversionRate) : null,
  }));
}

/** GET /scopes/{id}/efficacy: how well each payload outcome separates those who attain within the scope. */
export function scopeEfficacy(world: World, scope: Doc, resources: Resources): Doc {
  const people = scopePopulation(world, scope, resources);
  const outcomes = strings(obj(scope.payload)?.outcome_ids).flatMap((id) => {
    const outcome = resources.get("outcomes", id);
    if (!outcome) return [];
    const scores = outcomeScores(world, outcome, resources);
    const top = strategies(scores, people).at(-1) as Doc;
    return [{ outcome_id: id, auc: auc(scores, attainedBy(world, outcome, resources), world.size), conversion_rate: round(scores.conversionRate), top_decile_lift: top.lift }];
  });
  return { scope_id: scope.id, scope_individuals_count: people.length, outcomes };
}

/** GET /targets/{id}/analysis: the delivered people by trait, attribute and geography (state and postcode). */
export function targetAnalysis(world: World, target: Doc, scope: Doc, resources: Resources): Doc {
  const people = targetPeople(world, target, scope, resources);
  const names = [...world.traits.keys()];
  const attributes = strings(obj(target.analysis_config)?.attributes);
  return {
    target_id: target.id,
    scope_id: scope.id,
    individuals_count: people.length,
    residences_count: residenceCount(world, people),
    traits: names.filter((n) => !n.startsWith("ig/")).map((trait_name) => ({ trait_name, ...dimension(world, trait_name, people) })),
    attributes: attributes.map((attribute_name) => ({ attribute_name, ...dimension(world, attribute_name, people) })),
    geography: {
      state: categoryCounts(over(people, (p) => geographyOf(world, p, "state"))),
      postcode: categoryCounts(over(people, (p) => geographyOf(world, p, "postcode"))),
    },
  };
}

/** Month ends (`YYYY-MM-DD`) of the last `months` months, oldest first, ending at the world's today. */
function monthEnds(world: World, months: number): number[] {
  const today = new Date(world.today * 86_400_000);
  return Array.from({ length: months }, (_, i) => {
    const end = Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - (months - 1 - i) + 1, 0);
    return Math.min(world.today, Math.floor(end / 86_400_000));
  });
}

/**
 * GET /cohorts/{id}/analysis/membership: members over time (by their first event on the cohort's stream): the last
 * 30 days, 12 weeks and 12 month ends.
 */
export function cohortMembership(world: World, cohort: Doc, resources: Resources): Doc {
  const members = cohortMembers(world, cohort, resources);
  const counts = countMembers(world, members);
  const streamName = str(cohort.stream_name);
  const firstDay = new Float64Array(world.size).fill(-Infinity);
  if (streamName) {
    const stream = streamOf(world, streamName, resources);
    const dates = stream.columns.get("datetime") as Column;
    for (let p = 0; p < world.size; p++) {
      let first = Infinity;
      for (let e = stream.offsets[p] as number; e < (stream.offsets[p + 1] as number); e++) first = Math.min(first, dates.data[e] as number);
      firstDay[p] = first;
    }
  }
  const countOn = (day: number) => {
    let n = 0;
    for (let p = 0; p < world.size; p++) if (members[p] && (firstDay[p] as number) <= day) n++;
    return n;
  };
  const series = (days: number[]) => days.map((day) => ({ date: isoDay(day), count: countOn(day) }));
  const months = monthEnds(world, 12);
  return {
    cohort_id: cohort.id, ...counts,
    membership: months.map((day) => ({ date: isoDay(day), population_count: countOn(day) })),
    // The live service's shape (its published client): members per day, week and month, oldest first.
    days: series(Array.from({ length: 30 }, (_v, i) => world.today - 29 + i)),
    weeks: series(Array.from({ length: 12 }, (_v, i) => world.today - 7 * (11 - i))),
    months: series(months),
  };
}

/** Features the synthetic model reads, with their share of importance. */
const FEATURES = [
  { feature: "attainment_history", importance: 0.46 }, { feature: "engagement", importance: 0.31 },
  { feature: "lifetime_value", importance: 0.13 }, { feature: "ig/age", importance: 0.06 }, { feature: "ig/household_income_v2", importance: 0.04 },
];

/**
 * The ROC and lift curves at each tenth of the population, best scores first: what the live service's published
 * client reads as `overall_performance.recognized_individuals`. Without anyone (or everyone) attaining, the curves
 * are empty and the AUC is 0.5 (no better than chance).
 */
function performanceModel(scores: OutcomeScores, attained: Uint8Array | undefined, size: number): Doc {
  const order = Array.from({ length: size }, (_, p) => p).sort((a, b) => (scores.probability[b] as number) - (scores.probability[a] as number));
  const positives = attained ? attained.reduce((n, v) => n + v, 0) : 0;
  const negatives = size - positives;
  const roc: Doc[] = [{ x: 0, y: 0 }];
  const lift: Doc[] = [];
  if (attained && positives > 0 && negatives > 0) {
    let hits = 0;
    for (let tenth = 1; tenth <= 10; tenth++) {
      const upTo = Math.round((size * tenth) / 10);
      for (let i = Math.round((size * (tenth - 1)) / 10); i < upTo; i++) hits += attained[order[i] as number] as number;
      const y = round((hits / upTo) / (positives / size));
      roc.push({ x: round((upTo - hits) / negatives), y: round(hits / positives) });
      lift.push({ x: tenth / 10, y, y_min: y, y_max: y });
    }
  }
  const rocAuc = auc(scores, attained, size) ?? 0.5;
  return {
    roc_auc: rocAuc, roc_curve: lift.length > 0 ? roc : [], lift_curve: lift,
    lift_table: { headers: ["share_of_population", "lift"], rows: lift.map((l) => [l.x, l.y]) },
    metrics_table: { headers: ["metric", "value"], rows: [["roc_auc", rocAuc], ["attained", positives], ["population", size]] },
  };
}

/** GET /outcomes/{id}/analysis: model performance, feature importance, bias by age and gender, and decile strategies. */
export function outcomeAnalysis(world: World, outcome: Doc, resources: Resources): Doc {
  const scores = outcomeScores(world, outcome, resources);
  const attained = attainedBy(world, outcome, resources);
  const blocked = new Set(strings(outcome.feature_blocklist));
  return {
    outcome_id: outcome.id,
    model_performance: {
      auc: auc(scores, attained, world.size),
      conversion_rate: round(scores.conversionRate),
      population_count: world.size,
      attained_count: attained ? attained.reduce((s, v) => s + v, 0) : null,
    },
    feature_importance: FEATURES.filter((f) => !blocked.has(f.feature)),
    // The same figures in the shape of the live service's published client.
    overall_performance: { recognized_individuals: performanceModel(scores, attained, world.size) },
    overall_features: {
      recognized_individuals: FEATURES.filter((f) => !blocked.has(f.feature))
        .map((f) => ({ name: f.feature, literate: f.feature, importance: f.importance, directionality: [] })),
    },
    bias: outcomeBias(world, scores, attained),
    strategies: strategies(scores, everyone(world)),
  };
}

/** GET /recommenders/{id}/analysis: how many people get each rank, with their mean uncalibrated probability. */
export function recommenderAnalysis(world: World, recommender: Doc): Doc {
  const scores = recommenderScores(world, recommender);
  const ranks = Array.from({ length: RECOMMENDER_RANKS }, (_, i) => ({ rank: i + 1, people: 0, sum: 0 }));
  for (let p = 0; p < world.size; p++) {
    const r = ranks[(scores.rank[p] as number) - 1] as (typeof ranks)[number];
    r.people++;
    r.sum += scores.uncalibratedProbability[p] as number;
  }
  return {
    recommender_id: recommender.id,
    population_count: world.size,
    ranks: ranks.map(({ sum, ...r }) => ({ ...r, mean_uncalibrated_probability: r.people ? round(sum / r.people) : null })),
  };
}

/** GET /persona_sets/{id}/analysis/dimensions: each trait's distribution per persona; the most telling are salient. */
export function personaDimensions(world: World, personaSet: Doc, resources: Resources): Doc {
  const a = personaAssignment(world, personaSet, resources);
  const byPersona = a.personas.map((_, k) => ({ [Symbol.iterator]: function* () { for (let p = 0; p < world.size; p++) if (a.persona[p] === k) yield p; } }));
  const attributes = [...world.traits.keys()].map((attribute_name) => {
    const col = world.traits.get(attribute_name) as Column;
    const personas = a.personas.map((persona, k) => ({ persona_id: persona.id, ...dimension(world, attribute_name, byPersona[k] as Iterable<number>) }));
    // Salience: how far persona means spread, relative to the overall mean.
    const means = byPersona.map((people) => {
      let n = 0, s = 0;
      for (const p of people) if (!Number.isNaN(col.data[p])) { n++; s += col.data[p] as number; }
      return n ? s / n : 0;
    });
    const overall = means.reduce((s, m) => s + m, 0) / (means.length || 1);
    const spread = overall ? (Math.max(...means) - Math.min(...means)) / Math.abs(overall) : 0;
    return { attribute_name, spread, personas };
  });
  const salient = new Set([...attributes].filter((d) => world.traits.get(d.attribute_name)?.type !== "string").sort((x, y) => y.spread - x.spread).slice(0, 2).map((d) => d.attribute_name));
  return {
    persona_set_id: personaSet.id,
    personas: a.personas.map((p, k) => ({ ...p, individuals_count: a.individualsCount[k] })),
    attributes: attributes.map(({ spread: _spread, ...d }) => ({ ...d, salient: salient.has(d.attribute_name) })),
  };
}

/**
 * GET /persona_sets/{id}/analysis/flow (deprecated; its shape is not published): how many people moved from each
 * persona of the previous build to each of this one. The synthetic population never moves, so each persona flows
 * into itself.
 */
export function personaFlow(world: World, personaSet: Doc, resources: Resources): Doc {
  const a = personaAssignment(world, personaSet, resources);
  return {
    persona_set_id: personaSet.id,
    flows: a.personas.map((p, k) => ({ from_persona_id: p.id, to_persona_id: p.id, individuals_count: a.individualsCount[k] })),
  };
}

/** GET /streams/{id}/analysis: events per month and the distribution of each property. */
export function streamAnalysis(world: World, streamName: string, resources: Resources): Doc {
  const stream = streamOf(world, streamName, resources);
  const total = stream.offsets[world.size] as number;
  const dates = stream.columns.get("datetime") as Column;
  const months = new Map<string, { event_count: number; people: Set<number> }>();
  let oldest = Infinity, newest = -Infinity;
  for (let p = 0; p < world.size; p++) {
    for (let e = stream.offsets[p] as number; e < (stream.offsets[p + 1] as number); e++) {
      const day = dates.data[e] as number;
      if (Number.isNaN(day)) continue;
      oldest = Math.min(oldest, day);
      newest = Math.max(newest, day);
      const month = isoDay(day).slice(0, 7);
      const m = months.get(month) ?? { event_count: 0, people: new Set<number>() };
      m.event_count++;
      m.people.add(p);
      months.set(month, m);
    }
  }
  const events = { [Symbol.iterator]: function* () { for (let e = 0; e < total; e++) yield e; } };
  return {
    stream_name: streamName,
    event_count: total,
    ...(Number.isFinite(oldest) ? { oldest_date: isoDay(oldest), newest_date: isoDay(newest) } : {}),
    series: [...months].sort(([a], [b]) => a.localeCompare(b)).map(([month, m]) => ({ month, event_count: m.event_count, people_count: m.people.size })),
    properties: stream.properties.filter((prop) => prop.name !== "datetime").map((prop) => {
      const col = stream.columns.get(prop.name) as Column;
      return prop.type === "string" || prop.type === "boolean"
        ? { name: prop.name, type: prop.type, values: categoryCounts(over(events, (e) => valueAt(col, e))) }
        : { name: prop.name, type: prop.type, distribution: numericBins(over(events, (e) => col.data[e] as number)) };
    }),
  };
}

/** GET /traits/{id}/analysis/dimensions: coverage and distribution of a trait over the world. */
export function traitDimensions(world: World, traitName: string): Doc {
  const col = world.traits.get(traitName);
  let present = 0;
  if (col) for (let p = 0; p < world.size; p++) if (!Number.isNaN(col.data[p])) present++;
  return {
    trait_name: traitName,
    type: col?.type ?? null,
    individuals_count: present,
    coverage: world.size ? round((present / world.size) * 100, 2) : 0,
    ...dimension(world, traitName, everyone(world)),
  };
}
