// Deterministic per-person predictions: outcome propensities, persona assignments, recommender ranks and
// forecast values. Each is a pure function of the world and the resource's id and definition.
import { cohortDefinition, cohortMembers } from "./cohorts.ts";
import type { World } from "./population.ts";
import { hashText, mix, unit } from "./random.ts";
import { docs, num, str, type Doc, type Resources } from "./resources.ts";

export interface OutcomeScores {
  probability: Float64Array;
  /** 1..100: the share of the world scoring at or below the person. */
  percentile: Uint8Array;
  /** Mean probability over the world: what lift divides by. */
  conversionRate: number;
}

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

/**
 * Propensity of every person for an outcome: a base rate drawn from the outcome's id, raised for people already
 * in its attainment cohort and for engaged people, with per-person noise.
 */
export function outcomeScores(world: World, outcome: Doc, resources: Resources): OutcomeScores {
  const id = String(outcome.id);
  const attainmentId = str(outcome.attainment_cohort_id);
  const attainmentDoc = attainmentId ? resources.get("cohorts", attainmentId) : undefined;
  return world.remember(`outcome:${id}:${attainmentDoc ? cohortDefinition(attainmentDoc) : ""}`, () => {
    const seed = hashText(id) ^ world.seed;
    const attained = attainmentDoc ? cohortMembers(world, attainmentDoc, resources) : undefined;
    const base = Math.log(0.02 + unit(seed, -1) * 0.18);
    const probability = new Float64Array(world.size);
    let sum = 0;
    for (let p = 0; p < world.size; p++) {
      const noise = unit(seed, p) + unit(seed ^ 0x5bd1e995, p) + unit(seed ^ 0x27d4eb2f, p) - 1.5;
      const engagement = unit(world.seed ^ 0xe1, p) - 0.5;
      const logit = base - Math.log1p(-Math.exp(base)) + 2 * noise + engagement + (attained?.[p] ? 1.5 : 0);
      const value = Math.round(sigmoid(logit) * 1e6) / 1e6;
      probability[p] = value;
      sum += value;
    }
    return { probability, percentile: percentiles(probability), conversionRate: world.size ? sum / world.size : 0 };
  });
}

function percentiles(values: Float64Array): Uint8Array {
  const sorted = Float64Array.from(values).sort();
  const n = values.length;
  const out = new Uint8Array(n);
  for (let p = 0; p < n; p++) {
    // Index past the last value <= this one: how many score at or below.
    let lo = 0, hi = n;
    const v = values[p] as number;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((sorted[mid] as number) <= v) lo = mid + 1;
      else hi = mid;
    }
    out[p] = Math.max(1, Math.ceil((lo * 100) / n));
  }
  return out;
}

export function lift(scores: OutcomeScores, person: number): number {
  return scores.conversionRate > 0 ? Math.round(((scores.probability[person] as number) / scores.conversionRate) * 1e4) / 1e4 : 0;
}

export interface Persona {
  id: string;
  name: string;
}

export interface PersonaAssignment {
  personas: Persona[];
  /** Index into `personas` per person. */
  persona: Uint8Array;
  /** Cohort members matched at individual level, per persona: those the persona set was built from. */
  individualsCount: number[];
}

/** A uuid-shaped id derived from a text, so synthesized personas keep their ids across builds. */
export function derivedId(text: string): string {
  const h = [0, 1, 2, 3].map((k) => mix(hashText(text), k).toString(16).padStart(8, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Clusters of a persona set that does not say how many. */
export const DEFAULT_PERSONAS = 5;

/**
 * The personas of a persona set: `number_of_clusters` of them (default: as many as it has, else 5), its own where
 * it has them, the rest with ids derived from the set's id so they are the same on every build.
 */
export function personasOf(personaSet: Doc): Persona[] {
  const own = docs(personaSet.personas).map((p) => ({ id: String(p.id), name: String(p.name ?? p.id) }));
  const count = Math.max(1, Math.min(50, num(personaSet.number_of_clusters) ?? (own.length || DEFAULT_PERSONAS)));
  return Array.from({ length: count }, (_, k) => own[k] ?? { id: derivedId(`${String(personaSet.id)}:${k}`), name: `Persona ${k + 1}` });
}

/**
 * Everyone gets a persona: cohort members matched at individual level by their own traits; everyone else takes the
 * persona of an individual-level member at their address, or their address's own persona.
 */
export function personaAssignment(world: World, personaSet: Doc, resources: Resources): PersonaAssignment {
  const id = String(personaSet.id);
  const personas = personasOf(personaSet);
  const cohortId = str(personaSet.cohort_id);
  const cohortDoc = cohortId ? resources.get("cohorts", cohortId) : undefined;
  return world.remember(`persona:${id}:${JSON.stringify(personas)}:${cohortDoc ? cohortDefinition(cohortDoc) : ""}`, () => {
    const members = cohortDoc ? cohortMembers(world, cohortDoc, resources) : new Uint8Array(world.size).fill(1);
    const seed = hashText(id) ^ world.seed;
    const k = personas.length;
    const byAddress = new Int16Array(world.residences.count).fill(-1);
    const persona = new Uint8Array(world.size);
    const individualsCount = new Array<number>(k).fill(0);
    const individual = (p: number) => members[p] === 1 && world.addressLevel[p] === 0;
    for (let p = 0; p < world.size; p++) {
      if (!individual(p)) continue;
      const assigned = mix(seed, p) % k;
      persona[p] = assigned;
      individualsCount[assigned] = (individualsCount[assigned] as number) + 1;
      const h = world.residenceOf[p] as number;
      if (byAddress[h] === -1) byAddress[h] = assigned;
    }
    for (let p = 0; p < world.size; p++) {
      if (individual(p)) continue;
      const h = world.residenceOf[p] as number;
      persona[p] = byAddress[h] !== -1 ? (byAddress[h] as number) : mix(seed ^ 0xadd, h) % k;
    }
    return { personas, persona, individualsCount };
  });
}

export interface RecommenderScores {
  /** 1 is the strongest recommendation. */
  rank: Uint8Array;
  uncalibratedProbability: Float64Array;
}

export const RECOMMENDER_RANKS = 10;

export function recommenderScores(world: World, recommender: Doc): RecommenderScores {
  const id = String(recommender.id);
  return world.remember(`recommender:${id}`, () => {
    const seed = hashText(id) ^ world.seed;
    const uncalibratedProbability = new Float64Array(world.size);
    const rank = new Uint8Array(world.size);
    for (let p = 0; p < world.size; p++) {
      const u = unit(seed, p);
      uncalibratedProbability[p] = Math.round(u * 1e6) / 1e6;
      rank[p] = RECOMMENDER_RANKS - Math.min(RECOMMENDER_RANKS - 1, Math.floor(u * RECOMMENDER_RANKS));
    }
    return { rank, uncalibratedProbability };
  });
}

/** Forecast value per person (e.g. spend over the forecast's timeframe), in the currency of `lifetime_value`. */
export function forecastValues(world: World, forecast: Doc): Float64Array {
  const id = String(forecast.id);
  return world.remember(`forecast:${id}`, () => {
    const seed = hashText(id) ^ world.seed;
    const out = new Float64Array(world.size);
    for (let p = 0; p < world.size; p++) {
      const ltv = world.trait("lifetime_value", p);
      const base = typeof ltv === "number" ? ltv * 0.3 : 20;
      out[p] = Math.round(base * (0.5 + unit(seed, p)) * 100) / 100;
    }
    return out;
  });
}
