import { describe, expect, it } from "vitest";
import { applyMergePatch, type Collection, families, validate } from "pulumi-audience/sdk/contract";

const A = "6f1c2a9e-0a8b-4c3d-9e2f-1a2b3c4d5e6f";

function patchErrors(collection: Collection, patch: unknown) {
  const family = families[collection];
  const result = validate(family.patch, patch, family.readOnly);
  return result.ok ? [] : result.errors;
}

describe("merge-patch bodies", () => {
  const clears: [Collection, Record<string, unknown>][] = [
    ["cohorts", { stream_name: null, stream_conditions: null, recency: null }],
    ["targets", { connection_id: null, filter: null, limit: null, analysis_config: null }],
    ["scopes", { payload: { location: { max_distance: null, min_distance: null, conditions: null } } }],
    ["atlases", { output_to_locations: { geometry: null, latitude: "lat", longitude: "lon" } }],
    ["datasets", { identity_sets: { old_set: null }, output_to_streams: { orders: null }, connection_id: null }],
    ["outcomes", { eligible_cohort_id: null, prediction_mode: null }],
    ["use_cases", { guide: null, preface: null }],
    ["persona_sets", { explore: null, number_of_clusters: null }],
  ];
  it.each(clears)("%s: null clears optional members", (collection, patch) => {
    expect(patchErrors(collection, patch)).toEqual([]);
  });

  const required: [Collection, Record<string, unknown>, string][] = [
    ["cohorts", { name: null }, "name"],
    ["targets", { scope_id: null }, "scope_id"],
    ["targets", { representation: null }, "representation"],
    ["scopes", { preview: null }, "preview"],
    ["outcomes", { attainment_cohort_id: null }, "attainment_cohort_id"],
    ["datasets", { identity_sets: null }, "identity_sets"],
    ["connections", { options: null }, "options"],
    ["webhook_endpoints", { url: null }, "url"],
  ];
  it.each(required)("%s: required member %s cannot be null", (collection, patch, path) => {
    const errors = patchErrors(collection, patch);
    expect(errors).toEqual([expect.objectContaining({ path, message: "is required and cannot be null" })]);
  });

  const readOnly: [Collection, string][] = [
    ["scopes", "report_url"], ["targets", "output_url"], ["cohorts", "residence_count"], ["connections", "directionality"],
    ["webhook_endpoints", "secret"], ["accounts", "api_key"], ["atlases", "counts"], ["datasets", "row_count"], ["outcomes", "status"],
  ];
  it.each(readOnly)("%s: read-only %s is refused", (collection, member) => {
    expect(patchErrors(collection, { [member]: "x" })).toEqual([expect.objectContaining({ path: member, message: "is read-only and cannot be set" })]);
  });

  it("patches one member of a union without restating the discriminator", () => {
    expect(patchErrors("targets", { representation: { transform_preset: "default" }, options: { gzip: true } })).toEqual([]);
  });

  it("moves a union to another variant, clearing the members of the one it leaves", () => {
    const stored = { name: "t", scope_id: A, representation: { mode: "identified" }, options: { type: "hosted_csv" }, limit: { method: "row_count", threshold: 10 } };
    const patch = { limit: { method: "percentile", outcome_id: A, percentile_min: 0, percentile_max: 50, threshold: null } };
    expect(patchErrors("targets", patch)).toEqual([]);
    const merged = applyMergePatch(stored, patch) as { limit: unknown };
    expect(merged.limit).toEqual({ method: "percentile", outcome_id: A, percentile_min: 0, percentile_max: 50 });
    expect(validate(families.targets.create, merged).ok).toBe(true);
    // Only the union's own members may be cleared.
    expect(patchErrors("targets", { limit: { colour: null } }).map((e) => e.path)).toEqual(["limit.colour"]);
  });

  it("names the member of a patched union that no variant takes", () => {
    expect(patchErrors("targets", { representation: { transform_preset: "p", colour: "blue" } }))
      .toEqual([expect.objectContaining({ path: "representation.colour", message: "is not a recognized field" })]);
    expect(patchErrors("targets", { options: { gzip: "yes" } }))
      .toEqual([expect.objectContaining({ path: "options.gzip", message: "must be a boolean" })]);
  });

  it("reports a cleared required member alongside other mistakes", () => {
    expect(patchErrors("targets", { name: null, human_readable: "yes" }).map((e) => `${e.path}: ${e.message}`).sort())
      .toEqual(["human_readable: must be a boolean", "name: is required and cannot be null"]);
  });

  it("still types the members it patches", () => {
    expect(patchErrors("cohorts", { explore: "yes" })).toEqual([expect.objectContaining({ path: "explore", message: "must be a boolean" })]);
  });

  it("leaves cross-member rules to the merged document, as the service does", () => {
    const stored = { name: "a", options: { type: "hosted_csv", upload_directory: "d" }, output_to_locations: { geometry: "g" } };
    const atlas = families.atlases;
    const moveWithoutClearing = applyMergePatch(stored, { output_to_locations: { latitude: "lat", longitude: "lon" } });
    const merged = validate(atlas.create, moveWithoutClearing);
    expect(merged.ok ? [] : merged.errors.map((e) => e.path)).toEqual(["output_to_locations.latitude", "output_to_locations.longitude"]);
    const moveClearing = applyMergePatch(stored, { output_to_locations: { geometry: null, latitude: "lat", longitude: "lon" } });
    expect(validate(atlas.create, moveClearing).ok).toBe(true);
  });

  it("renames a persona through its own body", async () => {
    const { personaPatch } = await import("pulumi-audience/sdk/contract");
    expect(validate(personaPatch, { name: "Bargain hunters" }).ok).toBe(true);
    expect(validate(personaPatch, { name: "" })).toMatchObject({ ok: false, errors: [{ path: "name" }] });
    expect(validate(personaPatch, { name: "x", id: A })).toMatchObject({ ok: false, errors: [{ path: "id" }] });
  });
});
