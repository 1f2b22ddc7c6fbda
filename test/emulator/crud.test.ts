import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emulator, scopeBody, seeded, type Client, type Json } from "./helpers.ts";

let api: Client;
let ids: Awaited<ReturnType<typeof seeded>>;

beforeAll(async () => {
  api = await emulator();
  ids = await seeded(api);
});
afterAll(() => api.close());

describe("a new account", () => {
  it("starts with the classic Leads and Customers cohorts, managed and read-only", async () => {
    const cohorts = (await api.get<Json[]>("/v1/cohorts")).body;
    expect(cohorts.map((c) => c.name).sort()).toEqual(["Customers", "Leads"]);
    for (const c of cohorts) expect(c).toMatchObject({ classic: true, managed: true, status: "ready", resource_type: "cohorts" });
    const patch = await api.patch(`/v1/cohorts/${ids.leads}`, { name: "Mine" });
    expect(patch.status).toBe(403);
    expect(patch.body).toMatchObject({ error: "FORBIDDEN" });
    expect((await api.del(`/v1/cohorts/${ids.leads}`)).status).toBe(403);
  });

  it("has the Forecasted spend forecast, which the API cannot create", async () => {
    const forecasts = (await api.get<Json[]>("/forecasts")).body;
    expect(forecasts.map((f) => f.name)).toEqual(["Forecasted spend"]);
    const created = await api.post("/v1/forecasts", { name: "Mine" });
    expect(created.status).toBe(404);
    expect(created.body).toMatchObject({ error: "NOT_FOUND" });
  });
});

describe("scopes", () => {
  it("are created, listed, read, updated and deleted, with and without /v1", async () => {
    const created = await api.post<Json>("/v1/scopes", scopeBody(ids.leads, String(ids.forecast)));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "Adaptive discounting", resource_type: "scopes", preview: true });
    const id = String(created.body.id);
    expect((await api.get<Json>(`/scopes/${id}`)).body.id).toBe(id);
    expect((await api.get<Json[]>("/scopes")).body.map((s) => s.id)).toContain(id);
    const updated = await api.patch<Json>(`/v1/scopes/${id}`, { name: "Renamed" });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name: "Renamed", population: { cohort_ids: [ids.leads] } });
    expect((await api.del(`/v1/scopes/${id}`)).status).toBe(204);
    const gone = await api.get(`/v1/scopes/${id}`);
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ error: "NOT_FOUND" });
  });

  it("refuse an invalid body with VALIDATION_FAILED naming each member", async () => {
    const reply = await api.post<Json>("/v1/scopes", { name: " ", population: { cohort_ids: [] }, payload: {}, preview: true });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toBe("VALIDATION_FAILED");
    expect(typeof reply.body.id).toBe("string");
    const paths = (reply.body.validationErrors as { path: string }[]).map((e) => e.path);
    expect(paths).toEqual(expect.arrayContaining(["name", "payload"]));
  });

  it("refuse a reference to a cohort that does not exist, naming the member", async () => {
    const reply = await api.post<Json>("/v1/scopes", scopeBody("00000000-0000-4000-8000-000000000000", String(ids.forecast)));
    expect(reply.status).toBe(400);
    expect(reply.body.validationErrors).toEqual([expect.objectContaining({ path: "population.cohort_ids[0]" })]);
  });
});
