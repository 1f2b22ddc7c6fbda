// The endpoints beyond CRUD: uploads feeding atlases and datasets, paged locations and logs, stream rules,
// related listings, credentials, personas, audits, insights, migrations, traits.csv.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emulator, scopeBody, seeded, type Client, type Json } from "./helpers.ts";

let api: Client;
let ids: Awaited<ReturnType<typeof seeded>>;
beforeAll(async () => {
  api = await emulator();
  ids = await seeded(api);
});
afterAll(() => api.close());

async function upload(path: string, text: string, contentType = "text/csv") {
  return api.call<Json>("POST", path, undefined, { raw: text, contentType });
}

const STORES = ["name,key,lat,lon,size", ...Array.from({ length: 25 }, (_v, i) => `Store ${i},S${i},${40 + i / 100},${-74 - i / 100},${i * 10}`), "Broken,SX,north,west,1"].join("\n");

describe("uploads", () => {
  it("answers an upload with no body, deletes a file (gone from the list, its download 404) and 404s a second delete", async () => {
    const sent = await upload("/v1/uploads/scratch/old.csv", "a,b\n1,2\n");
    expect(sent.status).toBe(201);
    expect(sent.body).toBeUndefined();
    const deleted = await api.call("DELETE", "/v1/uploads/scratch/old.csv");
    expect(deleted.status).toBe(204);
    expect((await api.get<Json[]>("/v1/uploads")).body.map((u) => u.subpath)).not.toContain("scratch/old.csv");
    expect((await api.get("/v1/uploads/scratch/old.csv")).status).toBe(404);
    const again = await api.call<Json>("DELETE", "/v1/uploads/scratch/old.csv");
    expect(again.status).toBe(404);
    expect(again.body.error).toBe("NOT_FOUND");
  });
});

describe("places (deprecated)", () => {
  it("takes a GeoJSON geometry, addresses, or both, and answers them back", async () => {
    const geojson = { type: "Point", coordinates: [-73.2, 44.5] };
    const address = { house_number_and_street: "1 Main St", city: "Burlington", state: "VT", postcode: "05401" };
    const byShape = await api.post<Json>("/v1/places", { name: "HQ", geojson });
    expect(byShape.status, JSON.stringify(byShape.body)).toBe(201);
    expect(byShape.body).toMatchObject({ name: "HQ", geojson });
    const byAddress = await api.post<Json>("/v1/places", { name: "Shop", addresses: [address] });
    expect(byAddress.status, JSON.stringify(byAddress.body)).toBe(201);
    expect((await api.get<Json>(`/v1/places/${String(byAddress.body.id)}`)).body).toMatchObject({ addresses: [address] });
    const badAddress = await api.post<Json>("/v1/places", { name: "Bad", addresses: [{ street: "1 Main St" }] });
    expect(badAddress.status).toBe(400);
    expect(badAddress.body.validationErrors).toEqual([expect.objectContaining({ path: "addresses[0].street" })]);
  });
});

describe("uploads, atlases and locations", () => {
  let atlas: string;

  beforeAll(async () => {
    expect((await upload("/v1/uploads/stores/stores.csv", STORES)).status).toBe(201);
    const created = await api.post<Json>("/v1/atlases", {
      name: "Stores", options: { type: "hosted_csv", upload_directory: "stores" },
      output_to_locations: { name: "name", reference_key: "key", latitude: "lat", longitude: "lon", properties: { size: { column_name: "size" } } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    atlas = String(created.body.id);
  });

  it("lists uploads in the live service's shape and downloads them, refusing zip archives", async () => {
    const listed = (await api.get<Json[]>("/v1/uploads")).body.find((u) => u.subpath === "stores/stores.csv");
    expect(listed).toEqual({
      subpath: "stores/stores.csv", file_size: Buffer.byteLength(STORES), md5_hash: createHash("md5").update(STORES).digest("hex"),
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
    expect((await api.get<string>("/v1/uploads/stores/stores.csv")).body).toBe(STORES);
    const zip = await upload("/v1/uploads/stores/stores.zip", "PK", "application/octet-stream");
    expect(zip.status).toBe(400);
    expect(zip.body.validationErrors).toEqual([expect.objectContaining({ path: "filename" })]);
  });

  it("builds an atlas from its upload: counts, locations and an ingress log with unplaced rows", async () => {
    const built = (await api.get<Json>(`/v1/atlases/${atlas}`)).body;
    expect(built).toMatchObject({ status: "ready", counts: { source_rows: 26, located_rows: 25, unplaced_rows: 1 } });
    const logs = (await api.get<Json[]>(`/v1/atlases/${atlas}/logs/ingress`)).body;
    expect(logs[0]).toMatchObject({ rows_read: 26, placed_rows: 25, dropped: { invalid_coordinates: 1 } });
    const unplaced = (await api.get<Json[]>(`/v1/atlases/${atlas}/logs/ingress/${String(logs[0]?.id)}/unplaced_rows`)).body;
    expect(unplaced).toEqual([expect.objectContaining({ reason: "invalid_coordinates", values: expect.objectContaining({ name: "Broken" }) })]);
  });

  it("pages /locations with limit, offset, X-Total-Count and Link", async () => {
    const first = await api.get<Json[]>("/v1/locations?limit=10");
    expect(first.headers.get("x-total-count")).toBe("25");
    expect(first.body).toHaveLength(10);
    expect(first.body[0]).toMatchObject({ atlas_id: atlas, name: "Store 0", reference_key: "S0", latitude: 40, longitude: -74, properties: { size: 0 } });
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get("link") ?? "")?.[1];
    expect(next).toBeDefined();
    expect(new URL(next!).pathname).toBe("/v1/locations");
    const second = await api.get<Json[]>(new URL(next!).pathname + new URL(next!).search);
    expect(second.body[0]?.name).toBe("Store 10");
    const last = await api.get<Json[]>(`/v1/atlases/${atlas}/locations?limit=10&offset=20`);
    expect(last.body).toHaveLength(5);
    expect(last.headers.get("link")).not.toContain('rel="next"');
    expect((await api.get<Json>("/v1/locations?limit=-1")).status).toBe(400);
    const picked = await api.get<Json[]>(`/v1/locations?ids=${String(first.body[3]?.id)}&ids=${String(first.body[5]?.id)}`);
    expect(picked.body.map((l) => l.name)).toEqual(["Store 3", "Store 5"]);
    expect(picked.headers.get("x-total-count")).toBe("2");
  });

  it("refuses a property named name, and placement columns from two groups, also after a merge patch", async () => {
    const reserved = await api.post<Json>("/v1/atlases", { name: "x", options: { type: "hosted_csv", upload_directory: "stores" }, output_to_locations: { properties: { name: { column_name: "name" } } } });
    expect(reserved.status).toBe(400);
    expect(reserved.body.validationErrors).toEqual([expect.objectContaining({ path: "output_to_locations.properties.name" })]);
    const mixed = await api.patch<Json>(`/v1/atlases/${atlas}`, { output_to_locations: { geometry: "geom" } });
    expect(mixed.status).toBe(400);
    const moved = await api.patch<Json>(`/v1/atlases/${atlas}`, { output_to_locations: { geometry: "geom", latitude: null, longitude: null } });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
  });

  it("deletes an atlas with its locations: they are part of it, not dependents", async () => {
    const created = await api.post<Json>("/v1/atlases", {
      name: "Doomed", options: { type: "hosted_csv", upload_directory: "stores" },
      output_to_locations: { name: "name", reference_key: "key", latitude: "lat", longitude: "lon" },
    });
    const doomed = String(created.body.id);
    expect((await api.get<Json[]>(`/v1/atlases/${doomed}/locations`)).body.length).toBeGreaterThan(0);
    expect((await api.del(`/v1/atlases/${doomed}`)).status).toBe(204);
    const remaining = (await api.get<Json[]>("/v1/locations?limit=1000")).body;
    expect(remaining.filter((l) => l.atlas_id === doomed)).toEqual([]);
  });
});

describe("datasets, streams and cohort stream rules", () => {
  beforeAll(async () => {
    const rows = ["email,amount,day,product", ...Array.from({ length: 30 }, (_v, i) => `p${i}@example.com,${i}.5,2026-01-${String((i % 28) + 1).padStart(2, "0")},${i % 2 ? "hat" : "shoe"}`)];
    await upload("/v1/uploads/orders/orders.csv", rows.join("\n"));
    const dataset = await api.post<Json>("/v1/datasets", {
      name: "Orders", identity_sets: { main: { email: "email" } }, options: { type: "hosted_csv", upload_directory: "orders" },
      output_to_streams: { orders: { data_map: { datetime: { column_name: "day", format: "yyyy_mm_dd_dash" }, amount: { column_name: "amount", format: "currency_dollars" }, product: { column_name: "product" } } } },
    });
    expect(dataset.status, JSON.stringify(dataset.body)).toBe(201);
  });

  it("counts the dataset's rows and creates the stream it feeds", async () => {
    const dataset = (await api.get<Json[]>("/v1/datasets")).body[0]!;
    expect(dataset).toMatchObject({ status: "ready", row_count: 30, identified_count: 30 });
    expect((await api.get<Json[]>(`/v1/datasets/${String(dataset.id)}/logs/ingress`)).body[0]).toMatchObject({ total: 30, recognized: 30 });
    const stream = (await api.get<Json>("/v1/streams/orders")).body;
    expect(stream).toMatchObject({ name: "orders", properties: { amount: { type: "double" }, datetime: { type: "date" }, product: { type: "string" } } });
  });

  it("refuses date operators on a property that is not a date, and numeric ones on a date", async () => {
    const notDate = await api.post<Json>("/v1/cohorts", { name: "x", stream_name: "orders", stream_conditions: [{ property: "amount", _on_or_after: "2026-01-01" }] });
    expect(notDate.status).toBe(400);
    expect(notDate.body.validationErrors).toEqual([expect.objectContaining({ path: "stream_conditions[0]._on_or_after" })]);
    const numeric = await api.post<Json>("/v1/cohorts", { name: "x", stream_name: "orders", stream_conditions: [{ property: "datetime", _gt: 5 }] });
    expect(numeric.status).toBe(400);
    const inverted = await api.post<Json>("/v1/cohorts", { name: "x", stream_name: "orders", stream_conditions: [{ property: "datetime", _on_or_after: "2026-02-01", _on_or_before: "2026-01-01" }] });
    expect(inverted.status).toBe(400);
    const fine = await api.post<Json>("/v1/cohorts", { name: "January buyers", stream_name: "orders", stream_conditions: [{ property: "datetime", _on_or_after: "2026-01-01", _on_or_before: "2026-01-31" }] });
    expect(fine.status, JSON.stringify(fine.body)).toBe(201);
  });

  it("lists the datasets tied to a scope's population", async () => {
    const cohort = (await api.get<Json[]>("/v1/cohorts")).body.find((c) => c.name === "January buyers")!;
    const scope = (await api.post<Json>("/v1/scopes", scopeBody(String(cohort.id), String(ids.forecast), { population: { cohort_ids: [cohort.id], exclusion_address_level_cohort_ids: [ids.customers] } }))).body;
    expect((await api.get<Json[]>(`/v1/scopes/${String(scope.id)}/datasets`)).body.map((d) => d.name)).toEqual(["Orders"]);
    expect((await api.get<Json[]>(`/v1/scopes/${String(scope.id)}/population/exclusion_address_level_cohorts`)).body.map((c) => c.id)).toEqual([ids.customers]);
    expect((await api.get<Json[]>(`/v1/scopes/${String(scope.id)}/payload/cohorts`)).body).toEqual([]);
  });

  it("answers Insights queries above the aggregation threshold, within the daily allowance", async () => {
    expect((await api.post<Json>("/v1/insights/query", { query: "x" })).status).toBe(404);
    expect((await api.post("/v1/insights", {})).status).toBe(201);
    const reply = await api.post<Json>("/v1/insights/query", { query: 'SELECT product, COUNT(*) AS n FROM "Orders" GROUP BY product' });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.rows).toEqual(expect.arrayContaining([{ product: "hat", n: 15 }, { product: "shoe", n: 15 }]));
    const small = await api.post<Json>("/v1/insights/query", { query: `SELECT product, COUNT(*) FROM "Orders" WHERE email = 'p1@example.com' GROUP BY product` });
    expect(small.body.rows).toEqual([]);
    const bad = await api.post<Json>("/v1/insights/query", { query: "DROP TABLE x" });
    expect(bad.body.validationErrors).toEqual([expect.objectContaining({ path: "query" })]);
  });
});

describe("insights allowance", () => {
  it("answers 429 QUOTA_EXCEEDED once the daily allowance is used", async () => {
    const small = (await api.control<{ api_key: string }>("POST", "/accounts", { name: "Tiny", quotas: { "insights.queries_per_day": 1 } })).body;
    await api.post("/v1/insights", {}, small.api_key);
    await api.call("POST", "/v1/uploads/d/d.csv", undefined, { raw: "a\n1", contentType: "text/csv", key: small.api_key });
    await api.post("/v1/datasets", { name: "D", identity_sets: { m: { email: "a" } }, options: { type: "hosted_csv", upload_directory: "d" } }, small.api_key);
    const query = { query: 'SELECT a, COUNT(*) FROM "D" GROUP BY a' };
    expect((await api.post("/v1/insights/query", query, small.api_key)).status).toBe(200);
    const refused = await api.post<Json>("/v1/insights/query", query, small.api_key);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toBe("QUOTA_EXCEEDED");
  });
});

describe("connections", () => {
  it("rotate credentials for their own type and list the targets that use them", async () => {
    const connection = (await api.post<Json>("/v1/connections", { name: "pg", options: { type: "postgres", host: "h", port: 5432, database: "d", schema: "s", user: "u", password: "pw-123" } })).body;
    const id = String(connection.id);
    expect(connection).toMatchObject({ directionality: "bidirectional", options: { password: "<secret>" } });
    expect((await api.post<Json>(`/v1/connections/${id}/rotate_credentials`, { type: "snowflake" })).status).toBe(400);
    const rotated = await api.post<Json>(`/v1/connections/${id}/rotate_credentials`, { type: "postgres" });
    expect(rotated.status).toBe(200);
    expect(JSON.stringify(rotated.body)).not.toContain("pw-123");
    const renamed = await api.patch<Json>(`/v1/connections/${id}`, { name: "warehouse" });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    const scope = (await api.post<Json>("/v1/scopes", scopeBody(ids.leads, String(ids.forecast)))).body;
    const target = (await api.post<Json>("/v1/targets", { name: "t", scope_id: scope.id, connection_id: id, representation: { mode: "hashed" }, options: { type: "postgres", table_name: "out" } })).body;
    expect(target.status, JSON.stringify(target)).toBe("ready");
    expect((await api.get<Json[]>(`/v1/connections/${id}/targets`)).body.map((t) => t.id)).toEqual([target.id]);
  });
});

describe("hosted targets", () => {
  it("answer with a signed, expiring output_url", async () => {
    const scope = (await api.post<Json>("/v1/scopes", scopeBody(ids.leads, String(ids.forecast)))).body;
    const target = (await api.post<Json>("/v1/targets", { name: "csv", scope_id: scope.id, representation: { mode: "identified" }, options: { type: "hosted_csv" } })).body;
    const url = new URL(String(target.output_url));
    expect(url.origin).toBe(api.url);
    expect(url.pathname).toBe(`/v1/targets/${String(target.id)}/download.csv`);
    expect(Number(url.searchParams.get("expires")) * 1000).toBeGreaterThan(Date.now());
    expect(url.searchParams.get("signature")).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("persona sets", () => {
  it("get personas when built, and a persona can be renamed", async () => {
    const set = (await api.post<Json>("/v1/persona_sets", { name: "P", cohort_id: ids.leads, number_of_clusters: 3 })).body;
    const personas = set.personas as Json[];
    expect(personas).toHaveLength(3);
    const renamed = await api.patch<Json>(`/v1/persona_sets/${String(set.id)}/personas/${String(personas[0]?.id)}`, { name: "Bargain hunters" });
    expect(renamed.body).toMatchObject({ name: "Bargain hunters" });
    expect(((await api.get<Json>(`/v1/persona_sets/${String(set.id)}`)).body.personas as Json[])[0]?.name).toBe("Bargain hunters");
    expect((await api.patch(`/v1/persona_sets/${String(set.id)}/personas/${String(personas[0]?.id)}`, { name: "" })).status).toBe(400);
  });
});

describe("configuration audits", () => {
  it("are created and applied with 202, listing orphaned resources", async () => {
    await api.post("/v1/outcomes", { name: "Unused", attainment_cohort_id: ids.leads });
    const created = await api.post<Json>("/v1/accounts/current/audits", {});
    expect(created.status).toBe(202);
    const audit = (await api.get<Json>(`/v1/accounts/current/audits/${String(created.body.id)}`)).body;
    expect(audit.orphaned_resources).toContainEqual(expect.objectContaining({ resource_type: "outcomes", name: "Unused" }));
    const applied = await api.post<Json>(`/v1/accounts/current/audits/${String(created.body.id)}/apply`);
    expect(applied.status).toBe(202);
    expect(applied.body.applied_at).toEqual(expect.any(String));
  });

  it("no longer list a use case deleted after they were built", async () => {
    const kept = await api.post<Json>("/v1/knowledgebase/use_cases", { name: "Kept", description: "Stays" });
    const gone = await api.post<Json>("/v1/knowledgebase/use_cases", { name: "Gone", description: "Deleted after the audit" });
    const created = await api.post<Json>("/v1/accounts/current/audits", {});
    const read = async () => ((await api.get<Json>(`/v1/accounts/current/audits/${String(created.body.id)}`)).body.use_cases as Json[]).map((u) => u.name);
    expect(await read()).toEqual(expect.arrayContaining(["Kept", "Gone"]));
    expect((await api.call("DELETE", `/v1/knowledgebase/use_cases/${String(gone.body.id)}`)).status).toBe(204);
    expect(await read()).toContain(String(kept.body.name));
    expect(await read()).not.toContain("Gone");
    const listed = (await api.get<Json[]>("/v1/accounts/current/audits")).body.find((a) => a.id === created.body.id);
    expect((listed?.use_cases as Json[]).map((u) => u.name)).not.toContain("Gone");
  });
});

describe("migrations", () => {
  it("link related accounts only, once, keep the first approval, and block pairs whose v2 target is archived", async () => {
    const me = (await api.get<Json>("/v1/accounts/current")).body.id as string;
    const v1 = (await api.control<{ id: string; api_key: string }>("POST", "/accounts", { name: "v1", parent_id: me })).body;
    const v2 = (await api.control<{ id: string; api_key: string }>("POST", "/accounts", { name: "v2", parent_id: me })).body;
    const stranger = (await api.control<{ id: string }>("POST", "/accounts", { name: "stranger" })).body;
    const unrelated = await api.post<Json>("/v1/migrations", { type: "identity_graph_v1_to_v2", v1_account_id: v1.id, v2_account_id: stranger.id }, v1.api_key);
    expect(unrelated.status).toBe(400);
    expect(unrelated.body.validationErrors).toEqual([expect.objectContaining({ path: "v2_account_id" })]);

    const scopeOf = async (key: string) => {
      const s = await seeded(api, key);
      const scope = (await api.post<Json>("/v1/scopes", { name: "s", population: { cohort_ids: [s.leads] }, payload: { cohort_ids: [s.customers] }, preview: false }, key)).body;
      return (await api.post<Json>("/v1/targets", { name: "t", scope_id: scope.id, representation: { mode: "identified" }, options: { type: "hosted_csv" } }, key)).body.id as string;
    };
    const t1 = await scopeOf(v1.api_key);
    const t2 = await scopeOf(v2.api_key);
    const created = await api.post<Json>("/v1/migrations", { type: "identity_graph_v1_to_v2", v1_account_id: v1.id, v2_account_id: v2.id, targets: [{ v1_id: t1, v2_id: t2 }] }, v1.api_key);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ account_tree_relationship: "siblings", targets: [expect.objectContaining({ push_readiness: { status: "ready" } })] });
    const id = String(created.body.id);
    expect((await api.post("/v1/migrations", { type: "identity_graph_v1_to_v2", v1_account_id: v1.id, v2_account_id: v2.id }, v2.api_key)).status).toBe(409);

    const first = await api.patch<Json>(`/v1/migrations/${id}`, { approved_at: "2026-01-01T00:00:00Z" }, v2.api_key);
    expect(first.status).toBe(200);
    const again = await api.patch<Json>(`/v1/migrations/${id}`, { approved_at: "2026-02-01T00:00:00Z" }, v1.api_key);
    expect(again.body.approved_at).toBe("2026-01-01T00:00:00Z");

    await api.post(`/v1/targets/${t2}/archive`, undefined, v2.api_key);
    expect(((await api.get<Json>(`/v1/migrations/${id}`, v1.api_key)).body.targets as Json[])[0]).toMatchObject({ push_readiness: { status: "blocked" } });
  });
});

describe("traits and webhooks", () => {
  it("serves /traits.csv with every trait", async () => {
    await api.post("/v1/traits", { name: "loyalty_tier", category: "loyalty" });
    const reply = await api.get<string>("/v1/traits.csv");
    expect(reply.headers.get("content-type")).toContain("text/csv");
    expect(reply.body.split("\n")[0]).toContain("id,name,category");
    expect(reply.body).toContain("loyalty_tier,loyalty");
  });

  it("gives a webhook endpoint a secret, answered as <secret>", async () => {
    const hook = (await api.post<Json>("/v1/webhook_endpoints", { url: "https://example.com/h", enabled_events: ["resource.errored"] })).body;
    expect(hook).toMatchObject({ secret: "<secret>", status: "enabled" });
    const disabled = await api.patch<Json>(`/v1/webhook_endpoints/${String(hook.id)}`, { status: "disabled" });
    expect(disabled.body).toMatchObject({ status: "disabled", secret: "<secret>" });
  });
});
