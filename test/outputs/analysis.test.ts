import { describe, expect, it } from "vitest";
import {
  cohortMembership, outcomeAnalysis, personaDimensions, recommenderAnalysis, scopeAnalysis, scopeEfficacy, scopeGeography, streamAnalysis, targetAnalysis, traitDimensions,
} from "../../emulator/outputs/analysis.ts";
import { ageBand, outcomeBias } from "../../emulator/outputs/bias.ts";
import { targetAnalysisPdf } from "../../emulator/outputs/pdf.ts";
import { cohortMembers } from "../../emulator/world/cohorts.ts";
import { generateWorld } from "../../emulator/world/population.ts";
import { outcomeScores } from "../../emulator/world/scores.ts";
import type { Doc } from "../../emulator/world/resources.ts";
import { COHORTS, fixtureWorld, IDS, resources, scopeDoc, targetDoc } from "./fixture.ts";

const world = fixtureWorld();
const res = resources();
const cohort = (id: string) => COHORTS.find((c) => c.id === id) as Doc;

describe("analyses", () => {
  it("scope analysis: counts and an outcome probability distribution whose shares sum to 1", () => {
    const a = scopeAnalysis(world, scopeDoc({ population: { cohort_ids: [IDS.buyers] } }), res);
    expect(a).toMatchObject({ scope_individuals_count: 4, scope_residences_count: 3, eligible_individuals_count: 6, eligible_residences_count: 4 });
    const [outcome] = a.payload as Doc[];
    expect(outcome).toMatchObject({ resource_type: "outcomes", resource_id: IDS.outcome });
    const bins = outcome?.distribution as Doc[];
    expect(bins).toHaveLength(10);
    for (const key of ["scope", "eligible", "scope_residences", "eligible_residences"]) {
      expect(bins.reduce((s, b) => s + (b[key] as number), 0)).toBeCloseTo(1, 3);
    }
  });

  it("scope geography: per state and postcode with payload cohort counts; empty until built; postcodes left out past 250", () => {
    const scope = scopeDoc({ payload: { outcome_ids: [IDS.outcome], cohort_ids: [IDS.gold] } });
    expect(scopeGeography(world, scope, res, false)).toEqual({ states: {}, postcodes: {} });
    const g = scopeGeography(world, scope, res, true);
    expect(g.states).toEqual({
      TX: { individuals: 3, residences: 2, cohorts: { [IDS.gold]: 1 } },
      WA: { individuals: 2, residences: 1, cohorts: { [IDS.gold]: 1 } },
      MA: { individuals: 1, residences: 1, cohorts: { [IDS.gold]: 0 } },
    });
    expect(Object.keys(g.postcodes as Doc).sort()).toEqual(["02108", "78701", "78702", "98101"]);
    const big = generateWorld({ size: 4000 });
    const bigGeography = scopeGeography(big, scope, res, true);
    expect(Object.keys(bigGeography)).toEqual(["states"]);
  });

  it("efficacy and outcome analysis: AUC against attainment, deciles and bias groups", () => {
    const w = generateWorld({ size: 3000 });
    const outcome = { id: IDS.outcome, attainment_cohort_id: IDS.buyers, feature_blocklist: ["ig/age"] };
    const e = scopeEfficacy(w, scopeDoc(), res);
    const auc = (e.outcomes as Doc[])[0]?.auc as number;
    // Attainers score higher: the model separates them better than chance.
    expect(auc).toBeGreaterThan(0.6);
    const a = outcomeAnalysis(w, outcome, res);
    expect((a.model_performance as Doc).auc).toBe(auc);
    expect((a.feature_importance as Doc[]).map((f) => f.feature)).not.toContain("ig/age");
    const deciles = a.strategies as Doc[];
    expect(deciles.map((d) => d.percentile_min)).toEqual([1, 11, 21, 31, 41, 51, 61, 71, 81, 91]);
    expect(deciles.reduce((s, d) => s + (d.people as number), 0)).toBe(3000);
    expect(deciles[9]?.lift as number).toBeGreaterThan(deciles[0]?.lift as number);
    // Bias in the published client's shape: age bands from ig/age, one unknown gender (the world holds none).
    const bias = a.bias as Doc;
    const data = bias.data as { age: Doc; gender: Doc };
    const attainers = cohortMembers(w, res.get("cohorts", IDS.buyers) as Doc, res).reduce((n, v) => n + v, 0);
    const total = (list: unknown) => (list as Doc[]).reduce((n, d) => n + (d.count as number), 0);
    expect(total(data.age.positives)).toBe(attainers);
    expect(total(data.age.candidates)).toBe(3000 - attainers);
    expect((data.age.positives as Doc[]).map((d) => d.value)).toEqual(["teen", "young_adult", "adult", "middle_age", "senior", "unknown"]);
    expect(data.gender.positives).toEqual([{ value: "unknown", count: attainers, proportion: 1 }]);
    expect(data.gender.level).toBe("low_bias");
    for (const label of [data.age.positives, data.age.candidates]) {
      expect((label as Doc[]).reduce((n, d) => n + (d.proportion as number), 0)).toBeCloseTo(1, 3);
    }
    // Each subpopulation's share of the top 5% over its share of everyone, weighted by size, averages to 1.
    const predictions = bias.predictions as Doc[];
    expect(predictions.reduce((n, s) => n + (s.count as number), 0)).toBe(3000);
    const weighted = predictions.reduce((n, s) => n + (s.count as number) * (((s.metrics as Doc[])[0] as Doc).value as number), 0);
    expect(weighted / 3000).toBeCloseTo(1, 2);
    const power = bias.power as Doc[];
    expect(power.map((s) => s.values)).toEqual(predictions.map((s) => s.values));
    const fairness = bias.fairness as Doc[];
    expect(((fairness[0] as Doc).metrics as Doc[]).map((m) => m.name)).toEqual([
      "equal_opportunity_difference", "statistical_parity_difference", "average_odds_difference", "disparate_impact", "total_fairness",
    ]);
    const summary = bias.summary as Doc;
    expect(summary.predictions_unbiased).toBe(predictions.every((s) => ((s.metrics as Doc[])[0] as Doc).level === "low_bias"));
    expect(summary.fairness_fair).toBe(fairness.every((s) => ((s.metrics as Doc[]).at(-1) as Doc).level === "equitably_treated"));
    expect(summary.data_unbiased).toBe(data.age.level === "low_bias");
  });

  it("outcome bias: a skewed attainment shows as strong age bias; no attainment leaves power and fairness empty", () => {
    const w = generateWorld({ size: 2000 });
    const seniors = Uint8Array.from({ length: w.size }, (_v, p) => ((w.trait("ig/age", p) as number | null) ?? 0) > 60 ? 1 : 0);
    const scores = outcomeScores(w, { id: IDS.outcome }, res);
    const skewed = outcomeBias(w, scores, seniors);
    const age = (skewed.data as Doc).age as Doc;
    expect(age.level).toBe("strong_bias");
    expect((age.positives as Doc[]).map((d) => d.value)).toEqual(["senior"]);
    expect((skewed.summary as Doc).data_unbiased).toBe(false);
    const none = outcomeBias(w, scores, undefined);
    expect(none.power).toEqual([]);
    expect(none.fairness).toEqual([]);
    expect(((none.data as Doc).age as Doc).positives).toEqual([]);
    expect(ageBand(20)).toBe("teen");
    expect(ageBand(21)).toBe("young_adult");
    expect(ageBand(61)).toBe("senior");
    expect(ageBand(NaN)).toBe("unknown");
  });

  it("recommender analysis: every person counted under the rank the scores give them", () => {
    const w = generateWorld({ size: 2000 });
    const a = recommenderAnalysis(w, { id: IDS.outcome });
    const ranks = a.ranks as Doc[];
    expect(ranks.map((r) => r.rank)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(ranks.reduce((s, r) => s + (r.people as number), 0)).toBe(2000);
    // Rank 1 is the strongest recommendation: the highest uncalibrated probabilities.
    expect(ranks[0]?.mean_uncalibrated_probability as number).toBeGreaterThan(ranks[9]?.mean_uncalibrated_probability as number);
  });

  it("target analysis and its PDF", async () => {
    const target = targetDoc({ analysis_config: { attributes: ["ig/age"] }, filter: { cohort_membership: [{ cohort_id: IDS.buyers, _eq: true }] } });
    const a = targetAnalysis(world, target, scopeDoc(), res);
    expect(a).toMatchObject({ individuals_count: 4, residences_count: 3 });
    expect((a.traits as Doc[]).find((t) => t.trait_name === "loyalty_tier")?.values).toEqual([
      { value: "gold", count: 2 }, { value: "bronze", count: 1 }, { value: "silver", count: 1 },
    ]);
    expect((a.attributes as Doc[])[0]).toMatchObject({ attribute_name: "ig/age" });
    expect((a.geography as Doc).state).toEqual([{ value: "TX", count: 3 }, { value: "WA", count: 1 }]);
    const pdf = await targetAnalysisPdf(a, "Buyers");
    expect(pdf.subarray(0, 5).toString()).toBe("%PDF-");
    expect(pdf.subarray(-6).toString()).toContain("%%EOF");
  });

  it("cohort membership over time, stream analysis and trait dimensions", () => {
    const m = cohortMembership(world, cohort(IDS.buyers), res);
    expect(m).toMatchObject({ population_count: 4, residence_count: 3 });
    const series = m.membership as Doc[];
    expect(series).toHaveLength(12);
    // Cara bought in 2024, Ann in March 2025, Bob in June 2025, Eve in December.
    expect(series[0]).toEqual({ date: "2025-02-28", population_count: 1 });
    expect(series[3]).toEqual({ date: "2025-05-31", population_count: 2 });
    expect(series.at(-1)).toEqual({ date: "2026-01-01", population_count: 4 });
    const s = streamAnalysis(world, "transactions", res);
    expect(s).toMatchObject({ event_count: 5, oldest_date: "2024-01-10", newest_date: "2025-12-30" });
    expect((s.series as Doc[]).find((x) => x.month === "2025-12")).toEqual({ month: "2025-12", event_count: 2, people_count: 2 });
    expect((s.properties as Doc[]).find((p) => p.name === "category")?.values).toContainEqual({ value: "grocery", count: 2 });
    expect(traitDimensions(world, "lifetime_value")).toMatchObject({ individuals_count: 5, coverage: 83.33 });
  });

  it("persona set dimensions: personas with individuals and per-persona distributions", () => {
    const d = personaDimensions(world, { id: IDS.personaSet, cohort_id: IDS.buyers, number_of_clusters: 3 }, res);
    expect((d.personas as Doc[]).reduce((s, p) => s + (p.individuals_count as number), 0)).toBe(3);
    const attrs = d.attributes as Doc[];
    expect(attrs.map((a) => a.attribute_name)).toContain("ig/age");
    expect(attrs.filter((a) => a.salient)).toHaveLength(2);
    expect((attrs[0]?.personas as Doc[])).toHaveLength(3);
  });
});
