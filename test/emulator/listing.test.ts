// What the emulator's indexes must keep true as an account grows and changes: lists in creation order (long ones
// streamed whole), `?ids=` answering exactly the named resources, quotas counting what exists, and dependants
// following every change of a reference.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emulator, scopeBody, seeded, type Client, type Json } from "./helpers.ts";

let api: Client;
beforeAll(async () => {
  api = await emulator();
});
afterAll(() => api.close());

describe("an account with more resources than a list answers at once", () => {
  it("lists them all, oldest first, as one JSON array; ?ids= answers the named ones in that order; a delete frees quota", { timeout: 60_000 }, async () => {
    const account = (await api.control<{ api_key: string }>("POST", "/accounts", { name: "Large", quotas: { cohorts: 1_050 } })).body;
    const made: string[] = [];
    for (let i = 0; i < 1_050; i += 50) {
      const batch = await Promise.all(Array.from({ length: 50 }, (_, n) => api.post<Json>("/v1/cohorts", { name: `cohort ${i + n}` }, account.api_key)));
      for (const reply of batch) {
        expect(reply.status).toBe(201);
        made.push(String(reply.body.id));
      }
    }
    const listed = await api.get<Json[]>("/v1/cohorts", account.api_key);
    expect(listed.status).toBe(200);
    expect(listed.headers.get("content-type")).toContain("application/json");
    const ours = listed.body.filter((c) => c.managed !== true);
    expect(ours.map((c) => c.id)).toEqual(made);
    expect(ours[0]).toMatchObject({ name: "cohort 0", resource_type: "cohorts" });

    const picked = [made[900]!, made[3]!, made[500]!];
    const byIds = await api.get<Json[]>(`/v1/cohorts?${[...picked, "00000000-0000-4000-8000-000000000000"].map((id) => `ids=${id}`).join("&")}`, account.api_key);
    expect(byIds.body.map((c) => c.id)).toEqual([made[3], made[500], made[900]]);
    // Another account's key sees none of them.
    expect((await api.get<Json[]>(`/v1/cohorts?ids=${made[3]}`)).body).toEqual([]);

    expect((await api.post("/v1/cohorts", { name: "one too many" }, account.api_key)).status).toBe(403);
    expect((await api.del(`/v1/cohorts/${made[7]}`, account.api_key)).status).toBe(204);
    expect((await api.post("/v1/cohorts", { name: "fits again" }, account.api_key)).status).toBe(201);
    expect((await api.get<Json[]>(`/v1/cohorts?ids=${made[7]}`, account.api_key)).body).toEqual([]);
  });
});

describe("dependants", () => {
  it("follow a reference as it changes: a cohort a scope no longer names can be deleted", async () => {
    await api.control("POST", "/reset");
    const ids = await seeded(api);
    const spare = String((await api.post<Json>("/v1/cohorts", { name: "Spare" })).body.id);
    const scope = (await api.post<Json>("/v1/scopes", scopeBody(spare, String(ids.forecast)))).body;
    expect(scope.id, JSON.stringify(scope)).toBeDefined();
    expect((await api.del(`/v1/cohorts/${spare}`)).status).toBe(409);
    expect((await api.patch(`/v1/scopes/${String(scope.id)}`, { population: { cohort_ids: [ids.leads] } })).status).toBe(200);
    expect((await api.del(`/v1/cohorts/${spare}`)).status).toBe(204);
    expect((await api.del(`/v1/scopes/${String(scope.id)}`)).status).toBe(204);
  });
});
