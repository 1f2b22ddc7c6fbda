import { describe, expect, it } from "vitest";
import { applyMergePatch, mergePatch } from "pulumi-audience/sdk/contract";

describe("mergePatch", () => {
  it("is undefined when nothing changed, whatever the key order", () => {
    expect(mergePatch({ a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 })).toBeUndefined();
  });
  it("turns removed members into null and keeps unchanged siblings out", () => {
    expect(mergePatch({ payload: { location: { max_distance: 500, min_distance: 10 } } }, { payload: { location: { min_distance: 10 } } }))
      .toEqual({ payload: { location: { max_distance: null } } });
  });
  it("replaces arrays whole", () => {
    expect(mergePatch({ ids: ["a", "b"] }, { ids: ["b"] })).toEqual({ ids: ["b"] });
  });
  it("round-trips: applying the patch yields the target document", () => {
    const from = { name: "x", population: { cohort_ids: ["a"], include: ["b"] }, preview: true };
    const to = { name: "y", population: { cohort_ids: ["a", "c"] }, preview: false, payload: { forecast_ids: ["f"] } };
    expect(applyMergePatch(from, mergePatch(from, to))).toEqual(to);
  });
});
