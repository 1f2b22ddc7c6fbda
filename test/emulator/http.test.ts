// Transport behaviour: error bodies, content types, sizes, unknown routes, /v1, ids filters, /openapi.json.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emulator, scopeBody, seeded, type Client, type Json } from "./helpers.ts";

let api: Client;
let ids: Awaited<ReturnType<typeof seeded>>;
beforeAll(async () => {
  api = await emulator();
  ids = await seeded(api);
});
afterAll(() => api.close());

const UUID = /^[0-9a-f-]{36}$/;

describe("error bodies", () => {
  it("answer malformed JSON with 400 BAD_REQUEST in the service's body", async () => {
    const reply = await api.call<Json>("POST", "/v1/scopes", undefined, { raw: '{"name": ' });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ error: "BAD_REQUEST", id: expect.stringMatching(UUID), note: expect.stringContaining("JSON") });
  });

  it("answer a wrong content type with 400 BAD_REQUEST", async () => {
    const reply = await api.call<Json>("POST", "/v1/scopes", undefined, { raw: "name=x", contentType: "application/x-www-form-urlencoded" });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toBe("BAD_REQUEST");
  });

  it("answer an oversize body with 400 BAD_REQUEST, not a crash", async () => {
    const reply = await api.post<Json>("/v1/scopes", { name: "x".repeat(2 * 1024 * 1024) });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toBe("BAD_REQUEST");
    expect((await api.get("/v1/scopes")).status).toBe(200);
  });

  it("answer an unknown route with 404 NOT_FOUND", async () => {
    for (const path of ["/v1/nothing-here", "/nothing", "/v1/_emulator/outbox"]) {
      const reply = await api.get<Json>(path);
      expect(reply.status).toBe(404);
      expect(reply.body).toMatchObject({ error: "NOT_FOUND", id: expect.stringMatching(UUID) });
    }
  });

  it("refuse a body nested deeper than the limit with 400 naming the limit, on any JSON member", async () => {
    const deep = (n: number) => '{"a":'.repeat(n) + "1" + "}".repeat(n);
    for (const [path, raw] of [["/v1/accounts", `{"name":"x","branding":${deep(2000)}}`], ["/v1/scopes", "[".repeat(100000)]] as const) {
      const reply = await api.call<Json>("POST", path, undefined, { raw });
      expect(reply.status).toBe(400);
      expect(reply.body).toMatchObject({ error: "BAD_REQUEST", note: expect.stringContaining("nest at most 64 levels") });
    }
    const within = await api.post<Json>("/v1/accounts", { name: "Nested", branding: JSON.parse(deep(60)) });
    expect(within.status).toBe(201);
  });

  it("answer an overlong or undecodable path segment in the service's body, without echoing it", async () => {
    const long = "x".repeat(500);
    for (const path of [`/v1/scopes/${long}`, "/v1/scopes/%E0%A4%A"]) {
      const reply = await api.get<Json>(path);
      expect(reply.status).toBe(400);
      expect(reply.body).toMatchObject({ error: "BAD_REQUEST", id: expect.stringMatching(UUID), note: expect.any(String) });
      expect(JSON.stringify(reply.body)).not.toContain(long);
    }
    expect((await api.get<Json>(`/v1/scopes/${long}`)).body.note).toContain("100 characters");
  });

  it("refuse a __proto__ member instead of merging it", async () => {
    const reply = await api.call<Json>("POST", "/v1/scopes", undefined, { raw: '{"__proto__": {"polluted": true}}' });
    expect(reply.status).toBe(400);
    expect(({} as Json).polluted).toBeUndefined();
  });

  it("refuse a __proto__ member spelled with escapes", async () => {
    const reply = await api.call<Json>("POST", "/v1/scopes", undefined, { raw: '{"\\u005f_proto__": {"polluted": true}}' });
    expect(reply.status).toBe(400);
    expect(reply.body.note).toContain("__proto__");
  });
});

describe("lists", () => {
  it("are bare arrays filtered by repeated ids", async () => {
    const a = (await api.post<Json>("/v1/scopes", scopeBody(ids.leads, String(ids.forecast)))).body.id as string;
    const b = (await api.post<Json>("/v1/scopes", scopeBody(ids.customers, String(ids.forecast)))).body.id as string;
    const reply = await api.get<Json[]>(`/v1/scopes?ids=${a}&ids=${b}`);
    expect(reply.body.map((s) => s.id).sort()).toEqual([a, b].sort());
    expect((await api.get<Json[]>(`/scopes?ids=${a}`)).body.map((s) => s.id)).toEqual([a]);
  });

  it("accept 100 ids and refuse 101 with a 400 naming ids", async () => {
    const many = (n: number) => Array.from({ length: n }, (_v, i) => `ids=00000000-0000-4000-8000-${String(i).padStart(12, "0")}`).join("&");
    expect((await api.get(`/v1/cohorts?${many(100)}`)).status).toBe(200);
    const reply = await api.get<Json>(`/v1/cohorts?${many(101)}`);
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ error: "VALIDATION_FAILED", validationErrors: [expect.objectContaining({ path: "ids" })] });
    expect(reply.body.note).toMatch(/^The query string is invalid: ids: /);
  });

  it("refuse an id that is not a uuid", async () => {
    const reply = await api.get<Json>("/v1/cohorts?ids=nope");
    expect(reply.status).toBe(400);
    expect(reply.body.validationErrors).toEqual([expect.objectContaining({ path: "ids[0]" })]);
  });

  it("take ids comma-separated too, skipping empty ones, and name a bad one by its place among them", async () => {
    const [a, b, c] = await Promise.all([1, 2, 3].map(async (i) => (await api.post<Json>("/v1/cohorts", { name: `listed ${i}` })).body.id as string));
    const listed = await api.get<Json[]>(`/v1/cohorts?ids=${a},,${b}&ids=${c}`);
    expect(listed.body.map((d) => d.id).sort()).toEqual([a, b, c].sort());
    const bad = await api.get<Json>(`/v1/cohorts?ids=${a},${b}&ids=${c},nope`);
    expect(bad.status).toBe(400);
    expect(bad.body.validationErrors).toEqual([expect.objectContaining({ path: "ids[3]", message: expect.stringContaining("uuid") })]);
  });
});

describe("/openapi.json", () => {
  it("describes every family's paths from the contract, without a key", async () => {
    const reply = await api.call<Json>("GET", "/openapi.json", undefined, { key: null });
    expect(reply.status).toBe(200);
    const paths = reply.body.paths as Record<string, Json>;
    expect(Object.keys(paths)).toEqual(expect.arrayContaining(["/scopes", "/scopes/{id}", "/targets/{id}/archive", "/insights/query", "/uploads/{directory}/{filename}"]));
    expect(Object.keys(paths["/accounts/{id}"]!)).toEqual(expect.arrayContaining(["get", "patch", "delete"]));
    expect(JSON.stringify(paths["/locations"])).toContain("X-Total-Count");
    const schemas = (reply.body.components as { schemas: Record<string, Json> }).schemas;
    expect(schemas.ScopeCreate).toMatchObject({ type: "object", required: expect.arrayContaining(["name", "population", "payload", "preview"]) });
    // The outputs and action bodies are described from the contract too, and no schema is left empty.
    expect(Object.keys(paths)).toEqual(expect.arrayContaining(["/targets/{id}/lookup", "/targets/{id}/download.csv", "/scopes/{id}/analysis/geography", "/outcomes/{id}/analysis"]));
    expect(JSON.stringify(paths["/targets/{id}/lookup"])).toContain("#/components/schemas/LookupRequest");
    expect(JSON.stringify(paths["/scopes/{id}/archive"])).toContain("#/components/schemas/ArchiveRequest");
    expect(schemas.LookupRequest).toMatchObject({ type: "object", properties: expect.objectContaining({ email: expect.any(Object), identity_sets: expect.any(Object) }) });
    expect(Object.entries(schemas).filter(([, schema]) => Object.keys(schema).length === 0).map(([name]) => name)).toEqual([]);
  });
});
