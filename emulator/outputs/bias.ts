// An outcome's bias report in the live service's shape (its published client's OutcomeAnalysisBias), computed over
// the synthetic world. Age comes from `ig/age`; the world holds no gender, so everyone's gender is unknown and the
// gender figures are those of a single group.
import type { World } from "../world/population.ts";
import type { Doc } from "../world/resources.ts";
import type { OutcomeScores } from "../world/scores.ts";

const round = (v: number, digits = 4) => Math.round(v * 10 ** digits) / 10 ** digits;

/** The client's age bands, in years: teen [0, 21), young adult [21, 30], adult [31, 40], middle age [41, 60], senior 61+. */
const AGE_BANDS = [
  { value: "teen", max: 20 }, { value: "young_adult", max: 30 }, { value: "adult", max: 40 },
  { value: "middle_age", max: 60 }, { value: "senior", max: Infinity },
];
export const ageBand = (age: number): string => Number.isNaN(age) ? "unknown" : (AGE_BANDS.find((b) => age <= b.max) as { value: string }).value;
/** Age values youngest first, unknown last. */
const AGE_ORDER = [...AGE_BANDS.map((b) => b.value), "unknown"];
const byAge = (a: string, b: string) => AGE_ORDER.indexOf(a) - AGE_ORDER.indexOf(b);

/** The share of the eligible population the decision threshold selects: the top 5%, as the client documents. */
const TOP_PERCENTILE = 95;

/** `low_bias` under 0.1, `moderate_bias` under 0.2, `strong_bias` beyond: the client's reading of a distance. */
const level = (distance: number) => distance < 0.1 ? "low_bias" : distance < 0.2 ? "moderate_bias" : "strong_bias";

type People = number[];

/** Normalised 1-D Wasserstein distance between the known ages of `a` and `b`, over the range of `all` ages. */
function wasserstein(ages: Float64Array, a: People, b: People, range: { lo: number; hi: number }): number {
  const known = (people: People) => people.map((p) => ages[p] as number).filter((v) => !Number.isNaN(v));
  const x = known(a), y = known(b);
  if (x.length === 0 || y.length === 0 || range.hi <= range.lo) return 0;
  const cdf = (list: number[]) => {
    const counts = new Float64Array(range.hi - range.lo + 1);
    for (const v of list) counts[v - range.lo] = (counts[v - range.lo] as number) + 1;
    let run = 0;
    return Array.from(counts, (c) => (run += c) / list.length);
  };
  const fx = cdf(x), fy = cdf(y);
  let area = 0;
  for (let i = 0; i < fx.length - 1; i++) area += Math.abs((fx[i] as number) - (fy[i] as number));
  return area / (range.hi - range.lo);
}

/** Each label's share of people per value of `valueOf`, in `order`. */
function proportions(people: People, valueOf: (p: number) => string, order = (a: string, b: string) => a.localeCompare(b)): Doc[] {
  const counts = new Map<string, number>();
  for (const p of people) counts.set(valueOf(p), (counts.get(valueOf(p)) ?? 0) + 1);
  return [...counts].sort(([a], [b]) => order(a, b)).map(([value, n]) => ({ value, count: n, proportion: round(n / people.length) }));
}

/** Largest gap between a label's share of a value and the whole population's share of it. */
function proportionGap(labelled: Doc[], all: Doc[]): number {
  const share = (list: Doc[], value: unknown) => (list.find((d) => d.value === value)?.proportion as number | undefined) ?? 0;
  return Math.max(0, ...all.map((d) => Math.abs(share(labelled, d.value) - (d.proportion as number))));
}

interface Rates { size: number; selected: number; positives: number; hits: number }

function rates(people: People, selected: Uint8Array, attained: Uint8Array | undefined): Rates {
  const r = { size: people.length, selected: 0, positives: 0, hits: 0 };
  for (const p of people) {
    r.selected += selected[p] as number;
    if (attained?.[p]) { r.positives++; r.hits += selected[p] as number; }
  }
  return r;
}
const f1 = (r: Rates) => r.hits === 0 ? 0 : (2 * r.hits) / (r.selected + r.positives);

/**
 * The bias member of GET /outcomes/{id}/analysis. Positives are the attainers, candidates everyone else; without an
 * attainment cohort nobody is positive and the figures that need attainment (power, fairness) list no subpopulation.
 */
export function outcomeBias(world: World, scores: OutcomeScores, attained: Uint8Array | undefined): Doc {
  const ages = Float64Array.from({ length: world.size }, (_v, p) => {
    const age = world.trait("ig/age", p);
    return typeof age === "number" ? age : NaN;
  });
  const everyone: People = Array.from({ length: world.size }, (_v, p) => p);
  const positives = everyone.filter((p) => attained?.[p]);
  const candidates = everyone.filter((p) => !attained?.[p]);
  const known = everyone.map((p) => ages[p] as number).filter((v) => !Number.isNaN(v));
  const range = { lo: Math.min(...known), hi: Math.max(...known) };

  const ageOf = (p: number) => ageBand(ages[p] as number);
  const genderOf = () => "unknown";
  const ageLevel = level(Math.max(wasserstein(ages, positives, everyone, range), wasserstein(ages, candidates, everyone, range)));
  const genders = { all: proportions(everyone, genderOf), positives: proportions(positives, genderOf), candidates: proportions(candidates, genderOf) };
  const genderLevel = level(Math.max(proportionGap(genders.positives, genders.all), proportionGap(genders.candidates, genders.all)));

  const selected = Uint8Array.from(everyone, (p) => (scores.percentile[p] as number) > TOP_PERCENTILE ? 1 : 0);
  const overall = rates(everyone, selected, attained);
  const subpopulations = [...new Set(everyone.map(ageOf))].sort(byAge).map((band) => {
    const people = everyone.filter((p) => ageOf(p) === band);
    return { dimensions: ["age", "gender"], values: [band, "unknown"], people, rates: rates(people, selected, attained) };
  });
  const entry = (s: (typeof subpopulations)[number], metrics: Doc[]) => ({ dimensions: s.dimensions, values: s.values, count: s.people.length, metrics });

  const predictions = subpopulations.map((s) => {
    // Share of the target population over share of the eligible population.
    const odds = overall.selected ? (s.rates.selected / overall.selected) / (s.rates.size / overall.size) : 1;
    return entry(s, [{ name: "odds_ratio", value: round(odds), level: level(Math.abs(odds - 1)) }]);
  });
  const measurable = attained !== undefined && overall.positives > 0 && f1(overall) > 0;
  const power = !measurable ? [] : subpopulations.map((s) => {
    const relative = (f1(s.rates) - f1(overall)) / f1(overall);
    const reading = Math.abs(relative) < 0.1 ? "relatively_unaffected" : relative > 0 ? "enhanced" : "impaired";
    return entry(s, [{ name: "relative_f1", value: round(relative), level: reading }]);
  });
  const fairness = !measurable ? [] : subpopulations.map((s) => {
    const tpr = (r: Rates) => r.positives ? r.hits / r.positives : 0;
    const ppr = (r: Rates) => r.size ? r.selected / r.size : 0;
    const opportunity = tpr(s.rates) - tpr(overall);
    const parity = ppr(s.rates) - ppr(overall);
    const impact = ppr(overall) ? ppr(s.rates) / ppr(overall) : 1;
    const total = opportunity + parity + (opportunity + parity) / 2 + impact;
    const reading = total < 0.9 ? "disadvantaged" : total > 1.1 ? "privileged" : "equitably_treated";
    const metric = (name: string, value: number) => ({ name, value: round(value), level: reading });
    return entry(s, [metric("equal_opportunity_difference", opportunity), metric("statistical_parity_difference", parity),
      metric("average_odds_difference", (opportunity + parity) / 2), metric("disparate_impact", impact), metric("total_fairness", total)]);
  });
  const levelOf = (list: Doc[]) => list.map((s) => ((s.metrics as Doc[]).at(-1) as Doc).level);

  return {
    data: {
      age: {
        level: ageLevel,
        positives: proportions(positives, ageOf, byAge),
        candidates: proportions(candidates, ageOf, byAge),
      },
      gender: { level: genderLevel, positives: genders.positives, candidates: genders.candidates },
    },
    predictions, power, fairness,
    summary: {
      data_unbiased: ageLevel === "low_bias" && genderLevel === "low_bias",
      predictions_unbiased: levelOf(predictions).every((l) => l === "low_bias"),
      power_unbiased: levelOf(power).every((l) => l === "relatively_unaffected"),
      fairness_fair: levelOf(fairness).every((l) => l === "equitably_treated"),
    },
  };
}
