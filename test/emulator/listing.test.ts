// What the emulator's indexes must keep true as an account grows and changes: lists in creation order (long ones
// streamed whole), `?ids=` answering exactly the named resources, quotas counting what exists, and dependants
// following every change of a reference.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../emulator/app.ts";
import { FAMILIES } from "../../emulator/families/index.ts";
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

describe("?ids=", () => {
  const idsOf = async (path: string, key?: string) => (await api.get<Json[]>(path, key)).body.map((r) => r.id);

  it("answers the named resources archived or not as asked, of the account or shared with it", async () => {
    const [a, b] = await Promise.all(["archived", "kept"].map(async (name) => String((await api.post<Json>("/v1/cohorts", { name })).body.id)));
    expect((await api.post(`/v1/cohorts/${a}/archive`)).status).toBe(204);
    expect(await idsOf(`/v1/cohorts?ids=${a}&ids=${b}`)).toEqual([b]);
    expect(await idsOf(`/v1/cohorts?ids=${a}&ids=${b}&archived=true`)).toEqual([a]);

    // A migration belongs to its v1 account and is shared with its v2 account.
    const me = String((await api.get<Json>("/v1/accounts/current")).body.id);
    const [v1, v2, stranger] = await Promise.all(["v1", "v2", "stranger"].map(async (name) =>
      (await api.control<{ id: string; api_key: string }>("POST", "/accounts", { name, parent_id: me })).body));
    const made = await api.post<Json>("/v1/migrations", { type: "identity_graph_v1_to_v2", v1_account_id: v1!.id, v2_account_id: v2!.id }, v1!.api_key);
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const path = `/v1/migrations?ids=${String(made.body.id)}`;
    expect(await idsOf(path, v1!.api_key)).toEqual([made.body.id]);
    expect(await idsOf(path, v2!.api_key)).toEqual([made.body.id]);
    expect(await idsOf(path, stranger!.api_key)).toEqual([]);
  });

  it("refuses an id that is not a uuid among ids it holds, naming its place", async () => {
    const a = String((await api.post<Json>("/v1/cohorts", { name: "held" })).body.id);
    const reply = await api.get<Json>(`/v1/cohorts?ids=${a}&ids=${a},nope`);
    expect(reply.status).toBe(400);
    expect(reply.body.validationErrors).toEqual([expect.objectContaining({ path: "ids[2]", message: expect.stringContaining("uuid") })]);
  });

  it("refuses a resource's id that is not a uuid, though it is stored", async () => {
    const { app, ctx, apiKey, close } = createApp({ families: FAMILIES });
    try {
      const accountId = ctx.state.keyRecord(apiKey)!.account_id;
      ctx.state.store.transaction(() => ctx.state.insert(accountId, "cohorts", { id: "cohort-by-hand", name: "By hand" }));
      expect(ctx.state.resource("cohorts", "cohort-by-hand")).toBeDefined();
      const reply = await app.inject({ method: "GET", url: "/v1/cohorts?ids=cohort-by-hand", headers: { authorization: `Bearer ${apiKey}` } });
      expect(reply.statusCode).toBe(400);
      expect(reply.json<Json>().validationErrors).toEqual([expect.objectContaining({ path: "ids[0]" })]);
    } finally {
      await close();
    }
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
