// Each 400 of the spec's Errors table, through the HTTP API, naming the offending member.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emulator, seeded, type Client, type Json } from "./helpers.ts";

let api: Client;
let ids: Awaited<ReturnType<typeof seeded>>;
beforeAll(async () => {
  api = await emulator();
  ids = await seeded(api);
});
afterAll(() => api.close());

const paths = (reply: { body: Json }) => ((reply.body.validationErrors ?? []) as { path: string }[]).map((e) => e.path);

describe("the spec's 400s", () => {
  it("insufficient identity set fields, on POST and on PATCH of a dataset", async () => {
    const base = { name: "People", options: { type: "hosted_csv", upload_directory: "people" } };
    const post = await api.post<Json>("/v1/datasets", { ...base, identity_sets: { main: { person_first_name: "first" } } });
    expect(post.status).toBe(400);
    expect(paths(post)).toEqual(["identity_sets.main"]);
    const created = await api.post<Json>("/v1/datasets", { ...base, identity_sets: { main: { phone: "phone", person_last_name: "last" } } });
    expect(created.status).toBe(201);
    const patch = await api.patch<Json>(`/v1/datasets/${String(created.body.id)}`, { identity_sets: { main: { person_last_name: null } } });
    expect(patch.status).toBe(400);
    expect(paths(patch)).toEqual(["identity_sets.main"]);
  });

  it("blank names", async () => {
    for (const [path, body] of [["/v1/cohorts", { name: "   " }], ["/v1/outcomes", { name: "", attainment_cohort_id: ids.leads }]] as const) {
      const reply = await api.post<Json>(path, body);
      expect(reply.status).toBe(400);
      expect(paths(reply)).toEqual(["name"]);
    }
  });

  it("location_conditions together with the deprecated place_conditions", async () => {
    const atlas = (await api.post<Json>("/v1/atlases", { name: "A", options: { type: "hosted_csv", upload_directory: "a" }, output_to_locations: {} })).body;
    const reply = await api.post<Json>("/v1/cohorts", { name: "Near", location_conditions: [{ atlas_id: atlas.id, distance: 100 }], place_conditions: [{ place_id: "x" }] });
    expect(reply.status).toBe(400);
    expect(paths(reply)).toEqual(["place_conditions"]);
  });

  it("_matches combined with a numeric comparison in one location property condition", async () => {
    const reply = await api.post<Json>("/v1/scopes", {
      name: "s", population: { cohort_ids: [ids.leads] }, preview: true,
      payload: { forecast_ids: [ids.forecast], location: { conditions: [{ property: "size", _matches: "^big", _gt: 3 }] } },
    });
    expect(reply.status).toBe(400);
    expect(paths(reply)).toEqual(["payload.location.conditions[0]._gt"]);
  });

  it("unreadable stream conditions", async () => {
    const reply = await api.post<Json>("/v1/cohorts", { name: "x", stream_name: "s", stream_conditions: [{ property: "amount", _between: [1, 2] }] });
    expect(reply.status).toBe(400);
    expect(paths(reply)).toContain("stream_conditions[0]._between");
    expect(JSON.stringify(reply.body)).toContain("_on_or_before");
  });

  it("a reference to an atlas that does not exist", async () => {
    const reply = await api.post<Json>("/v1/cohorts", { name: "Near", location_conditions: [{ atlas_id: "00000000-0000-4000-8000-000000000001" }] });
    expect(reply.status).toBe(400);
    expect(paths(reply)).toEqual(["location_conditions[0].atlas_id"]);
  });
});

describe("singletons", () => {
  it("insights: created once, read, changed and force-updated without an id", async () => {
    expect((await api.get("/v1/insights")).status).toBe(404);
    expect((await api.post("/v1/insights", { plan: "standard" })).status).toBe(201);
    expect((await api.post<Json>("/v1/insights", {})).body.error).toBe("CONFLICT");
    expect((await api.patch<Json>("/v1/insights", { plan: "premium" })).body.plan).toBe("premium");
    expect((await api.post("/v1/insights/force_update")).status).toBe(204);
  });
});
