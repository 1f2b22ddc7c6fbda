import { describe, expect, it } from "vitest";
import { streamAnalysis } from "../../emulator/outputs/analysis.ts";
import { cohortMembers, countMembers, streamOf } from "../../emulator/world/cohorts.ts";
import { generateWorld } from "../../emulator/world/population.ts";
import { memoryResources, type Doc } from "../../emulator/world/resources.ts";
import { lift, outcomeScores, personaAssignment } from "../../emulator/world/scores.ts";
import { COHORTS, fixtureWorld, IDS, resources } from "./fixture.ts";

const world = fixtureWorld();
const members = (cohort: Doc) => {
  const flags = cohortMembers(world, { id: "c", name: "c", ...cohort }, resources());
  return [...flags.keys()].filter((p) => flags[p] === 1);
};
const tx = (extra: Doc) => members({ stream_name: "transactions", ...extra });

describe("cohort membership", () => {
  it("holds everyone without conditions and the people with events on a stream", () => {
    expect(members({})).toEqual([0, 1, 2, 3, 4, 5]);
    expect(tx({})).toEqual([0, 1, 2, 4]);
    expect(members({ stream_name: "no_such_stream" })).toEqual([]);
  });

  it("applies stream conditions per event with every operator", () => {
    expect(tx({ stream_conditions: [{ property: "value", _gte: 100 }] })).toEqual([0, 2]);
    expect(tx({ stream_conditions: [{ property: "value", _gt: 120 }] })).toEqual([2]);
    expect(tx({ stream_conditions: [{ property: "value", _lt: 10 }] })).toEqual([1]);
    expect(tx({ stream_conditions: [{ property: "value", _lte: 15 }] })).toEqual([0, 1]);
    expect(tx({ stream_conditions: [{ property: "category", _eq: "home" }] })).toEqual([4]);
    expect(tx({ stream_conditions: [{ property: "category", _in: ["apparel", "home"] }] })).toEqual([0, 4]);
    expect(tx({ stream_conditions: [{ property: "category", _nin: ["grocery"] }] })).toEqual([0, 2, 4]);
    expect(tx({ stream_conditions: [{ property: "category", _matches: "^elec" }] })).toEqual([2]);
    // Two conditions must hold on the same event: Ann's apparel purchase is the big one, not her grocery run.
    expect(tx({ stream_conditions: [{ property: "category", _eq: "grocery" }, { property: "value", _gte: 100 }] })).toEqual([]);
  });

  it("compares dates by calendar day, both ends included", () => {
    expect(tx({ stream_conditions: [{ property: "datetime", _on_or_after: "2025-06-15" }] })).toEqual([0, 1, 4]);
    expect(tx({ stream_conditions: [{ property: "datetime", _on_or_after: "2025-06-15", _on_or_before: "2025-06-15" }] })).toEqual([1]);
    expect(tx({ stream_conditions: [{ property: "datetime", _on_or_before: "2024-12-31" }] })).toEqual([2]);
  });

  it("applies counts, value sums and recency", () => {
    expect(tx({ min_count: 2 })).toEqual([0]);
    expect(tx({ max_count: 1 })).toEqual([1, 2, 4]);
    expect(tx({ min_value: 100 })).toEqual([0, 2]);
    expect(tx({ max_value: 50 })).toEqual([1]);
    expect(tx({ recency: { occurrence: "last", max_days: 30 } })).toEqual([0, 4]);
    expect(tx({ recency: { occurrence: "first", min_days: 365 } })).toEqual([2]);
    expect(tx({ recency: { occurrence: "first", min_days: 300, max_days: 310 } })).toEqual([0]);
  });

  it("applies trait and attribute conditions; optional ones let people lacking the value through", () => {
    expect(members({ traits: [{ name: "lifetime_value", _gte: 50 }] })).toEqual([0, 2, 5]);
    expect(members({ traits: [{ name: "lifetime_value", _gte: 50, optional: true }] })).toEqual([0, 2, 4, 5]);
    expect(members({ traits: [{ name: "loyalty_tier", _null: true }] })).toEqual([3]);
    expect(members({ traits: [{ name: "loyalty_tier", _nnull: true }] })).toEqual([0, 1, 2, 4, 5]);
    expect(members({ traits: [{ name: "loyalty_tier", _eq: "gold" }, { name: "lifetime_value", _gt: 100 }] })).toEqual([0]);
    expect(members({ attributes: [{ name: "ig/age", _gt: 40 }] })).toEqual([0, 5]);
    expect(members({ attributes: [{ name: "age", _lte: 33 }] })).toEqual([2, 4]);
  });

  it("selects people near atlas locations, or with invert those who are not", () => {
    const near = (condition: Doc) => members({ location_conditions: [{ atlas_id: IDS.atlas, ...condition }] });
    expect(near({})).toEqual([0, 1, 3, 4]);
    expect(near({ location_reference_keys: ["S1"], distance: 1500 })).toEqual([0, 1, 2]);
    expect(near({ location_reference_keys: ["S1"], distance: 1500, invert: true })).toEqual([3, 4, 5]);
    expect(near({ conditions: [{ property: "kind", _eq: "outlet" }], distance: 1700 })).toEqual([2, 3, 4]);
    expect(near({ conditions: [{ property: "name", _matches: "^Down" }] })).toEqual([0, 1]);
    // An atlas that maps no reference key column matches no key.
    expect(members({ location_conditions: [{ atlas_id: IDS.atlasWithoutKeys, location_reference_keys: ["S1"], distance: 10 }] })).toEqual([]);
    expect(members({ location_conditions: [{ atlas_id: IDS.atlasWithoutKeys, distance: 10 }] })).toEqual([5]);
  });

  it("counts population and residences", () => {
    const flags = cohortMembers(world, COHORTS[1] as Doc, resources());
    expect(countMembers(world, flags)).toEqual({ population_count: 4, residence_count: 3 });
  });
});

describe("synthetic world", () => {
  it("is the same for the same options and different for another seed", () => {
    const a = generateWorld({ size: 300, seed: 7 });
    const b = generateWorld({ size: 300, seed: 7 });
    const c = generateWorld({ size: 300, seed: 8 });
    const people = (w: typeof a) => Array.from({ length: 20 }, (_, p) => [w.identity.firstName(p), w.identity.email(p), w.postcodeOf(p), w.trait("ig/age", p)]);
    expect(people(a)).toEqual(people(b));
    expect(people(a)).not.toEqual(people(c));
    expect(Array.from(a.stream("transactions").offsets)).toEqual(Array.from(b.stream("transactions").offsets));
  });

  it("houses several people per residence with identities, coordinates and address-level people", () => {
    const w = generateWorld({ size: 2000 });
    expect(w.residences.count).toBeGreaterThan(500);
    expect(w.residences.count).toBeLessThan(2000);
    const shared = new Map<number, number>();
    for (let p = 0; p < w.size; p++) shared.set(w.residenceOf[p] as number, (shared.get(w.residenceOf[p] as number) ?? 0) + 1);
    expect([...shared.values()].some((n) => n >= 3)).toBe(true);
    expect(w.identity.email(0) ?? w.identity.email(1)).toMatch(/@/);
    expect(w.postcodeOf(0)).toMatch(/^\d{5}$/);
    const addressLevel = w.addressLevel.reduce((s, v) => s + v, 0);
    expect(addressLevel / w.size).toBeGreaterThan(0.05);
    expect(addressLevel / w.size).toBeLessThan(0.15);
    // Address-level people carry no provided attributes of their own.
    const p = w.addressLevel.indexOf(1);
    expect(w.trait("ig/age", p)).toBeNull();
    // Cohorts over generated streams and traits hold part of the world.
    const res = resources();
    const buyers = cohortMembers(w, { id: "b", name: "b", stream_name: "transactions", stream_conditions: [{ property: "category", _eq: "electronics" }] }, res);
    const share = buyers.reduce((s, v) => s + v, 0) / w.size;
    expect(share).toBeGreaterThan(0.05);
    expect(share).toBeLessThan(0.9);
  });
});

describe("declared streams", () => {
  it("generates the properties an account's stream declares, so conditions on them select people", () => {
    const w = generateWorld({ size: 1000 });
    const res = memoryResources({ streams: [{ name: "orders", properties: { total: { type: "double" }, store: { type: "string" } } }] });
    const stream = streamOf(w, "orders", res);
    expect(stream.properties.map((p) => p.name)).toEqual(["datetime", "total", "store"]);
    const flags = cohortMembers(w, { id: "o", name: "o", stream_name: "orders", stream_conditions: [{ property: "store", _eq: "store_2" }] }, res);
    const share = flags.reduce((s, v) => s + v, 0) / w.size;
    expect(share).toBeGreaterThan(0.05);
    expect(share).toBeLessThan(0.7);
    const analysis = streamAnalysis(w, "orders", res);
    expect((analysis.properties as Doc[]).map((p) => p.name)).toEqual(["total", "store"]);
  });
});

describe("scores", () => {
  it("gives every person a probability, a percentile from 1 to 100 and lift = probability / conversion rate", () => {
    const w = generateWorld({ size: 1000 });
    const scores = outcomeScores(w, { id: IDS.outcome, attainment_cohort_id: IDS.buyers }, resources());
    const probs = Array.from(scores.probability);
    expect(probs.every((v) => v > 0 && v < 1)).toBe(true);
    expect(Math.min(...scores.percentile)).toBe(1);
    expect(Math.max(...scores.percentile)).toBe(100);
    const mean = probs.reduce((s, v) => s + v, 0) / probs.length;
    expect(scores.conversionRate).toBeCloseTo(mean, 10);
    expect(lift(scores, 3)).toBeCloseTo((scores.probability[3] as number) / mean, 3);
    // Percentiles follow the probability order.
    const order = [...probs.keys()].sort((a, b) => (probs[a] as number) - (probs[b] as number));
    expect(scores.percentile[order[0] as number]).toBeLessThanOrEqual(scores.percentile[order[500] as number] as number);
    expect(scores.percentile[order[999] as number]).toBe(100);
  });

  it("assigns personas at individual level to cohort members and at address level to everyone else", () => {
    const a = personaAssignment(world, { id: IDS.personaSet, cohort_id: IDS.buyers, number_of_clusters: 3 }, resources());
    expect(a.personas).toHaveLength(3);
    // Bob (address level) shares Ann's persona; Dan (not a buyer) shares Eve's.
    expect(a.persona[1]).toBe(a.persona[0]);
    expect(a.persona[3]).toBe(a.persona[4]);
    // Built from the buyers matched at individual level: Ann, Cara, Eve.
    expect(a.individualsCount.reduce((s, n) => s + n, 0)).toBe(3);
  });
});
