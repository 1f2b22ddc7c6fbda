// What the service derives from the data that feeds a resource: a stream's event count, dates and per-dataset
// figures, and how they change when a dataset stops feeding it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emulator, type Client, type Json } from "./helpers.ts";

let api: Client;
beforeAll(async () => {
  api = await emulator();
});
afterAll(() => api.close());

async function upload(directory: string, csv: string): Promise<void> {
  const reply = await fetch(`${api.url}/v1/uploads/${directory}/part.csv`, {
    method: "POST", headers: { authorization: `Bearer ${api.apiKey}`, "content-type": "application/octet-stream" }, body: csv,
  });
  expect(reply.status).toBe(201);
}

async function dataset(name: string, directory: string, streams: Json): Promise<string> {
  const reply = await api.post<Json>("/v1/datasets", {
    name, identity_sets: { customer: { email: "email" } }, options: { type: "hosted_csv", upload_directory: directory }, output_to_streams: streams,
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return String(reply.body.id);
}

const purchases = (dateColumn: string) => ({ purchases: { data_map: { datetime: { column_name: dateColumn, format: "date_iso8601" } } } });

describe("a stream fed by datasets", () => {
  it("keeps the types the stream declares, and gains the properties only a dataset maps", async () => {
    expect((await api.post("/v1/streams", { name: "declared", properties: { amount: { type: "double" } } })).status).toBe(201);
    await upload("declared", "email,day,amount\na@example.com,2024-01-02,12.5\n");
    await dataset("Declared feed", "declared", { declared: { data_map: { datetime: { column_name: "day", format: "date_iso8601" }, amount: { column_name: "amount" } } } });
    expect((await api.get<Json>("/v1/streams/declared")).body.properties).toEqual({ amount: { type: "double" }, datetime: { type: "date" } });
  });


  it("counts events and dates per dataset and in total; a configured dataset that gave nothing has 0 and no dates", async () => {
    await upload("orders", "email,ordered\na@example.com,2024-01-02\nb@example.com,2024-03-05\nc@example.com,\n");
    await upload("returns", "email,returned\na@example.com,2023-12-30\n");
    await upload("old", "email,ordered\nd@example.com,1850-06-01\n");
    const orders = await dataset("Orders", "orders", purchases("ordered"));
    const returns = await dataset("Returns", "returns", purchases("returned"));
    const empty = await dataset("Nothing yet", "no-upload", purchases("ordered"));
    const old = await dataset("Archive", "old", purchases("ordered"));

    const stream = (await api.get<Json>("/v1/streams/purchases")).body;
    expect(stream.properties).toMatchObject({ datetime: { type: "date" } });
    const byDataset = new Map((stream.event_contribution_by_dataset as Json[]).map((c) => [c.dataset_id, c]));
    // An undated row still counts as an event; its dataset's dates come from its dated rows.
    expect(byDataset.get(orders)).toEqual({ dataset_id: orders, event_count: 3, oldest_date: "2024-01-02", newest_date: "2024-03-05" });
    expect(byDataset.get(returns)).toEqual({ dataset_id: returns, event_count: 1, oldest_date: "2023-12-30", newest_date: "2023-12-30" });
    expect(byDataset.get(empty)).toEqual({ dataset_id: empty, event_count: 0 });
    // Dates implausibly far in the past are left out of the stream.
    expect(byDataset.get(old)).toEqual({ dataset_id: old, event_count: 0 });
    expect(stream).toMatchObject({ event_count: 4, oldest_date: "2023-12-30", newest_date: "2024-03-05" });
    // The list answers the same figures as the item.
    const listed = (await api.get<Json[]>("/v1/streams")).body.find((s) => s.name === "purchases");
    expect(listed).toMatchObject({ event_count: 4, oldest_date: "2023-12-30" });

    // A dataset that stops feeding the stream leaves its list, its count and its dates.
    expect((await api.patch<Json>(`/v1/datasets/${returns}`, { output_to_streams: null })).status).toBe(200);
    const after = (await api.get<Json>("/v1/streams/purchases")).body;
    expect((after.event_contribution_by_dataset as Json[]).map((c) => c.dataset_id).sort()).toEqual([empty, old, orders].sort());
    expect(after).toMatchObject({ event_count: 3, oldest_date: "2024-01-02", newest_date: "2024-03-05" });

    // A stream without dated data has no dates at all.
    await upload("visits", "email\na@example.com\n");
    await dataset("Visits", "visits", { visits: { data_map: { page: { column_name: "email" } } } });
    const visits = (await api.get<Json>("/v1/streams/visits")).body;
    expect(visits.event_count).toBe(1);
    expect(visits).not.toHaveProperty("oldest_date");
    expect(visits).not.toHaveProperty("newest_date");
  });
});

describe("a trait made by a dataset", () => {
  it("names the datasets emitting it in metadata.emitted_by_datasets, and one that stops leaves the list", async () => {
    await upload("tiers", "email,tier\na@example.com,gold\n");
    const body = (name: string) => ({ name, identity_sets: { customer: { email: "email" } }, options: { type: "hosted_csv", upload_directory: "tiers" }, output_to_traits: { loyalty_tier: { column_name: "tier" } } });
    const first = String((await api.post<Json>("/v1/datasets", body("Loyalty"))).body.id);
    const second = String((await api.post<Json>("/v1/datasets", body("Loyalty, again"))).body.id);
    const trait = async () => (await api.get<Json[]>("/v1/traits")).body.find((t) => t.name === "loyalty_tier")!;
    const emitters = async () => (((await trait()).metadata as Json).emitted_by_datasets as Json[]).map((e) => e.dataset_id).sort();
    expect(await emitters()).toEqual([first, second].sort());
    expect((await api.get<Json>(`/v1/traits/${String((await trait()).id)}`)).body.metadata).toEqual({ emitted_by_datasets: expect.arrayContaining([{ dataset_id: first }]) });
    expect((await api.patch<Json>(`/v1/datasets/${second}`, { output_to_traits: null })).status).toBe(200);
    expect(await emitters()).toEqual([first]);
  });
});

describe("usage", () => {
  it("reports the Insights limits beside the counters, and the yearly limit only on the rolled-up endpoint when one is on record", async () => {
    const made = (await api.control<Json>("POST", "/accounts", { name: "Limited", quotas: { "insights.queries_per_day": 1, "usage.yearly_limit": 5000 } })).body;
    const key = String(made.api_key);
    const reply = await fetch(`${api.url}/v1/uploads/people/part.csv`, {
      method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/octet-stream" }, body: "email,state\na@example.com,CA\n",
    });
    expect(reply.status).toBe(201);
    expect((await api.post<Json>("/v1/datasets", { name: "People", identity_sets: { p: { email: "email" } }, options: { type: "hosted_csv", upload_directory: "people" } }, key)).status).toBe(201);
    expect((await api.post<Json>("/v1/insights", { plan: "standard" }, key)).status).toBe(201);
    const query = { query: 'SELECT state, COUNT(*) FROM "People" GROUP BY state' };
    expect((await api.post<Json>("/v1/insights/query", query, key)).status).toBe(200);
    expect((await api.post<Json>("/v1/insights/query", query, key)).status).toBe(429);

    const usage = (await api.get<Json>("/v1/accounts/current/usage", key)).body;
    expect(usage.insights).toEqual({
      queries_per_day: { count: 1, max_count: 1 },
      slot_hours_per_day: { count: 0, max_count: expect.any(Number) },
      refused_queries_per_30_days: { count: 1, max_count: expect.any(Number) },
    });
    expect(usage).not.toHaveProperty("limit");
    const all = (await api.get<Json>("/v1/accounts/current/usage/all", key)).body;
    expect(all).toMatchObject({ limit: 5000, insights: { queries_per_day: { count: 1, max_count: 1 } } });
    // None on record: omitted.
    expect((await api.get<Json>("/v1/accounts/current/usage/all")).body).not.toHaveProperty("limit");
  });
});

describe("an atlas's geometry column", () => {
  it("reads a bare pair as latitude then longitude, GeoJSON longitude first, and names why each other row placed nothing", async () => {
    const polygon = (ring: number[][]) => JSON.stringify({ type: "Polygon", coordinates: [ring] }).replaceAll('"', '""');
    const big = JSON.stringify({ type: "LineString", coordinates: Array.from({ length: 10_001 }, (_v, i) => [-74 + i / 1e5, 40]) }).replaceAll('"', '""');
    await upload("shapes", [
      "name,geom",
      'pair,"40.7,-74.0"',
      `point,"${JSON.stringify({ type: "Point", coordinates: [-74.0, 40.7] }).replaceAll('"', '""')}"`,
      'pair off the earth,"140.7,-74.0"',
      `point written latitude first,"${JSON.stringify({ type: "Point", coordinates: [40.7, -174.0] }).replaceAll('"', '""')}"`,
      "not geometry,somewhere",
      `flat,"${polygon([[-74, 40], [-73, 40], [-72, 40], [-74, 40]])}"`,
      `square,"${polygon([[-74, 40], [-73, 40], [-73, 41], [-74, 41], [-74, 40]])}"`,
      `huge,"${big}"`,
    ].join("\n") + "\n");
    const atlas = await api.post<Json>("/v1/atlases", { name: "Shapes", options: { type: "hosted_csv", upload_directory: "shapes" }, output_to_locations: { name: "name", geometry: "geom" } });
    expect(atlas.status, JSON.stringify(atlas.body)).toBe(201);
    const id = String(atlas.body.id);
    expect((await api.get<Json>(`/v1/atlases/${id}`)).body.counts).toEqual({ source_rows: 8, located_rows: 3, unplaced_rows: 5 });
    const locations = new Map((await api.get<Json[]>(`/v1/atlases/${id}/locations`)).body.map((l) => [l.name, l]));
    expect(locations.get("pair")).toMatchObject({ latitude: 40.7, longitude: -74 });
    expect(locations.get("point")).toMatchObject({ geometry: { type: "Point", coordinates: [-74, 40.7] } });
    // Latitude and longitude are present only for locations placed from a coordinate pair.
    expect(locations.get("point")).not.toHaveProperty("latitude");
    const log = (await api.get<Json[]>(`/v1/atlases/${id}/logs/ingress`)).body[0] as Json;
    const unplaced = (await api.get<Json[]>(`/v1/atlases/${id}/logs/ingress/${String(log.id)}/unplaced_rows`)).body;
    expect(Object.fromEntries(unplaced.map((u) => [(u.values as Json).name, u.reason]))).toEqual({
      "pair off the earth": "invalid_coordinates", "point written latitude first": "geometry_unreadable", "not geometry": "geometry_unreadable",
      flat: "encloses_nowhere", huge: "outline_too_large",
    });
    expect(log.dropped).toEqual({ invalid_coordinates: 1, geometry_unreadable: 2, encloses_nowhere: 1, outline_too_large: 1 });
  });
});
