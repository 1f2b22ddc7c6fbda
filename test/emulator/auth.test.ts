// Keys, accounts and what each may see: 401 codes, 403 across accounts, sub-accounts, quotas, secrets.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emulator, sampleIds, scopeBody, seeded, type Client, type Json } from "./helpers.ts";
import { samples } from "../samples.ts";

let api: Client;
let other: { id: string; api_key: string };
beforeAll(async () => {
  api = await emulator({ apiKey: "default-key" });
  other = (await api.control<{ id: string; api_key: string }>("POST", "/accounts", { name: "Other" })).body;
});
afterAll(() => api.close());

describe("keys", () => {
  it("answer 401 MISSING_API_KEY, MALFORMED_API_KEY and INVALID_AUTHORIZATION", async () => {
    expect((await api.call<Json>("GET", "/v1/scopes", undefined, { key: null })).body).toMatchObject({ error: "MISSING_API_KEY" });
    const malformed = await fetch(`${api.url}/v1/scopes`, { headers: { authorization: "Token abc" } });
    expect(malformed.status).toBe(401);
    expect(await malformed.json()).toMatchObject({ error: "MALFORMED_API_KEY" });
    const unknown = await api.get<Json>("/v1/scopes", "not-a-key");
    expect(unknown.status).toBe(401);
    expect(unknown.body.error).toBe("INVALID_AUTHORIZATION");
  });

  it("fix the default account's key with apiKey", async () => {
    expect(api.apiKey).toBe("default-key");
    expect((await api.get("/v1/accounts/current")).status).toBe(200);
  });

  it("expire: an expired key answers 401 EXPIRED_API_KEY, a live one works", async () => {
    const expired = (await api.control<Json>("POST", `/accounts/${other.id}/keys`, { expires_at: "2020-01-01T00:00:00Z" })).body.api_key as string;
    const reply = await api.get<Json>("/v1/scopes", expired);
    expect(reply.status).toBe(401);
    expect(reply.body.error).toBe("EXPIRED_API_KEY");
    const live = (await api.control<Json>("POST", `/accounts/${other.id}/keys`, { expires_at: "2999-01-01T00:00:00Z" })).body.api_key as string;
    expect((await api.get<Json>("/v1/accounts/current", live)).body.id).toBe(other.id);
  });
});

describe("accounts", () => {
  it("/accounts/current is the key's account, with its api_key as <secret>", async () => {
    const mine = (await api.get<Json>("/v1/accounts/current")).body;
    const theirs = (await api.get<Json>("/v1/accounts/current", other.api_key)).body;
    expect(mine.id).not.toBe(theirs.id);
    expect(theirs).toMatchObject({ id: other.id, name: "Other", api_key: "<secret>" });
    expect(JSON.stringify(theirs)).not.toContain(other.api_key);
  });

  it("let a parent read its sub-accounts and their usage, but not the other way round", async () => {
    const parent = (await api.get<Json>("/v1/accounts/current")).body.id as string;
    const child = (await api.control<{ id: string; api_key: string }>("POST", "/accounts", { name: "Child", parent_id: parent })).body;
    expect((await api.get<Json>(`/v1/accounts/${child.id}`)).body).toMatchObject({ id: child.id, parent_account_id: parent });
    expect((await api.get<Json>(`/v1/accounts/${child.id}/usage`)).status).toBe(200);
    expect((await api.get<Json[]>("/v1/accounts")).body.map((a) => a.id)).toEqual(expect.arrayContaining([parent, child.id]));
    const up = await api.get<Json>(`/v1/accounts/${parent}`, child.api_key);
    expect(up.status).toBe(403);
    expect(up.body.error).toBe("FORBIDDEN");
    expect((await api.get<Json>(`/v1/accounts/${other.id}`)).status).toBe(403);
  });

  it("seed forecasts only for accounts with early access", async () => {
    expect((await api.get<Json[]>("/v1/forecasts", other.api_key)).body).toEqual([]);
    const early = (await api.control<{ id: string; api_key: string }>("POST", "/accounts", { name: "Early", forecasts: true })).body;
    expect((await api.get<Json[]>("/v1/forecasts", early.api_key)).body.map((f) => f.name)).toEqual(["Forecasted spend"]);
    await api.control("POST", `/accounts/${other.id}/forecasts`, { name: "Forecasted visits" });
    expect((await api.get<Json[]>("/v1/forecasts", other.api_key)).body.map((f) => f.name)).toEqual(["Forecasted visits"]);
  });
});

describe("isolation", () => {
  it("answers 403 FORBIDDEN for another account's resource and hides it from lists", async () => {
    const ids = await seeded(api);
    const scope = (await api.post<Json>("/v1/scopes", scopeBody(ids.leads, String(ids.forecast)))).body;
    const id = String(scope.id);
    for (const reply of [
      await api.get<Json>(`/v1/scopes/${id}`, other.api_key),
      await api.patch<Json>(`/v1/scopes/${id}`, { name: "mine now" }, other.api_key),
      await api.del<Json>(`/v1/scopes/${id}`, other.api_key),
      await api.post<Json>(`/v1/scopes/${id}/archive`, undefined, other.api_key),
    ]) {
      expect(reply.status).toBe(403);
      expect(reply.body.error).toBe("FORBIDDEN");
    }
    expect((await api.get<Json[]>("/v1/scopes", other.api_key)).body).toEqual([]);
    expect((await api.get<Json>(`/v1/scopes/${id}`)).body.name).toBe(scope.name);
  });

  it("refuses a reference to another account's cohort as if it did not exist", async () => {
    const theirs = await seeded(api, other.api_key);
    const mine = await seeded(api);
    const reply = await api.post<Json>("/v1/scopes", scopeBody(theirs.leads, String(mine.forecast)));
    expect(reply.status).toBe(400);
    expect(reply.body.validationErrors).toEqual([expect.objectContaining({ path: "population.cohort_ids[0]", message: expect.stringContaining("does not exist") })]);
  });
});

describe("quotas", () => {
  it("answer 403 MAX_RESOURCES_REACHED beyond an account's quota", async () => {
    const limited = (await api.control<{ id: string; api_key: string }>("POST", "/accounts", { name: "Small", quotas: { cohorts: 2 } })).body;
    const cohort = await samples.cohorts!.body(sampleIds(api, limited.api_key));
    expect((await api.post("/v1/cohorts", cohort, limited.api_key)).status).toBe(201);
    expect((await api.post("/v1/cohorts", cohort, limited.api_key)).status).toBe(201);
    const refused = await api.post<Json>("/v1/cohorts", cohort, limited.api_key);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: "MAX_RESOURCES_REACHED", note: expect.stringContaining("2 cohorts") });
    expect((await api.get<Json[]>("/v1/cohorts", limited.api_key)).body).toHaveLength(4);
  });
});

describe("the account API", () => {
  it("creates a sub-account of the current one, renames it, and schedules its deletion", async () => {
    const created = await api.post<Json>("/v1/accounts", { name: "Region east" });
    expect(created.status).toBe(201);
    const me = (await api.get<Json>("/v1/accounts/current")).body.id;
    expect(created.body).toMatchObject({ name: "Region east", parent_account_id: me, api_key: "<secret>" });
    const id = String(created.body.id);
    expect((await api.patch<Json>(`/v1/accounts/${id}`, { name: "Region East" })).body.name).toBe("Region East");
    expect((await api.patch<Json>(`/v1/accounts/${id}`, { name: "" })).status).toBe(400);
    expect((await api.del(`/v1/accounts/${id}`)).status).toBe(202);
    expect((await api.get<Json>(`/v1/accounts/${id}`)).body.deletion_requested_at).toEqual(expect.any(String));
    expect((await api.del(`/v1/accounts/${other.id}`)).status).toBe(403);
  });

  it("counts a finished, enabled pipeline's delivery in usage; a preview one is not billed", async () => {
    const account = (await api.control<{ id: string; api_key: string }>("POST", "/accounts", { name: "Billing", forecasts: true })).body;
    const ids = await seeded(api, account.api_key);
    const deliver = async (preview: boolean) => {
      const scope = (await api.post<Json>("/v1/scopes", scopeBody(ids.leads, String(ids.forecast), { preview }), account.api_key)).body;
      await api.post("/v1/targets", { name: "t", scope_id: scope.id, representation: { mode: "identified" }, options: { type: "hosted_csv" } }, account.api_key);
    };
    await deliver(true);
    expect(((await api.get<Json>("/v1/accounts/current/usage", account.api_key)).body.metrics as Json).batch_deployments).toBe(0);
    await deliver(false);
    expect(((await api.get<Json>("/v1/accounts/current/usage", account.api_key)).body.metrics as Json).batch_deployments).toBe(1);
  });
});
