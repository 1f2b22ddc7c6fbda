// Every member the service answers is one the contract's response declares: a member passing through a loose object
// unknown reaches programs untyped, undocumented and in the service's snake_case. Checked on the answers of the
// families whose documents the service fills in itself: an account, a dataset and an atlas with their detected
// columns, a location.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { families, unwrap } from "pulumi-audience/sdk/contract";
import { emulator, type Client, type Json } from "./helpers.ts";

let api: Client;
beforeAll(async () => {
  api = await emulator();
});
afterAll(() => api.close());

/** Paths of `value`'s members the schema does not declare (records hold data keys: their keys are not members). */
function undeclared(schema: z.ZodType, value: unknown, path = ""): string[] {
  const s = unwrap(schema);
  if (Array.isArray(value)) return s instanceof z.ZodArray ? value.flatMap((v, i) => undeclared(s.def.element as z.ZodType, v, `${path}[${i}]`)) : [];
  if (typeof value !== "object" || value === null) return [];
  if (s instanceof z.ZodUnion) return (s.def.options as z.ZodType[]).map((o) => undeclared(o, value, path)).reduce((a, b) => (a.length <= b.length ? a : b));
  if (!(s instanceof z.ZodObject)) return [];
  const shape = s.shape as Record<string, z.ZodType>;
  return Object.entries(value).flatMap(([k, v]) => (k in shape ? undeclared(shape[k]!, v, `${path}.${k}`) : [`${path}.${k}`]));
}

async function upload(directory: string, csv: string): Promise<void> {
  const reply = await fetch(`${api.url}/v1/uploads/${directory}/part.csv`, {
    method: "POST", headers: { authorization: `Bearer ${api.apiKey}`, "content-type": "application/octet-stream" }, body: csv,
  });
  expect(reply.status).toBe(201);
}

describe("what the service fills in is declared by the contract", () => {
  it("a sub-account's answer, before and after its deletion is asked", async () => {
    const created = await api.post<Json>("/v1/accounts", { name: "Seasonal brand" });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = String(created.body.id);
    expect(undeclared(families.accounts.response, (await api.get<Json>(`/v1/accounts/${id}`)).body)).toEqual([]);
    expect((await api.del(`/v1/accounts/${id}`)).status).toBe(202);
    const scheduled = (await api.get<Json>(`/v1/accounts/${id}`)).body;
    expect(scheduled.deletion_requested_at).toEqual(expect.any(String));
    expect(undeclared(families.accounts.response, scheduled)).toEqual([]);
  });

  it("a dataset's answer, its detected columns included", async () => {
    await upload("people", "email,plan,joined\na@example.com,gold,2024-01-02\n");
    const created = await api.post<Json>("/v1/datasets", { name: "People", identity_sets: { customer: { email: "email" } }, options: { type: "hosted_csv", upload_directory: "people" } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const doc = (await api.get<Json>(`/v1/datasets/${String(created.body.id)}`)).body;
    expect((doc.detected_columns as Json[]).length).toBeGreaterThan(0);
    expect(undeclared(families.datasets.response, doc)).toEqual([]);
  });

  it("an atlas's answer and its locations'", async () => {
    await upload("stores", "name,lat,lng\nDowntown,40.7,-74.0\n");
    const created = await api.post<Json>("/v1/atlases", { name: "Stores", options: { type: "hosted_csv", upload_directory: "stores" }, output_to_locations: { name: "name", latitude: "lat", longitude: "lng" } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = String(created.body.id);
    expect(undeclared(families.atlases.response, (await api.get<Json>(`/v1/atlases/${id}`)).body)).toEqual([]);
    const locations = (await api.get<Json[]>(`/v1/atlases/${id}/locations`)).body;
    expect(locations).toHaveLength(1);
    expect(undeclared(families.locations.response, locations[0])).toEqual([]);
  });
});
