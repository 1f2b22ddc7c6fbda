// Every family of the contract gets the generic endpoints: create, list, get, merge patch, delete, archive.
import { families, type Collection, type FamilyDef } from "pulumi-audience/sdk/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { samples } from "../samples.ts";
import { emulator, sampleIds, type Client, type Json } from "./helpers.ts";

let api: Client;
beforeAll(async () => {
  api = await emulator();
});
afterAll(() => api.close());

const all = Object.values(families as Record<string, FamilyDef>);
/** Families whose rules need more than one account or a build; endpoints.test.ts and auth.test.ts cover them. */
const COVERED_ELSEWHERE = new Set(["accounts", "migrations", "audits"]);
const tested = all.filter((f) => f.creatable && !f.singleton && f.collection in samples && !COVERED_ELSEWHERE.has(f.collection));

describe.each(tested.map((f) => [f.collection, f] as const))("%s", (_name, family) => {
  const base = `/v1/${family.path}`;
  const sample = samples[family.collection as Collection]!;

  it("are created (status and body), listed, read, patched and deleted", async () => {
    const body = await sample.body(sampleIds(api));
    const change = sample.change(body);
    const created = await api.post<Json>(base, body);
    expect(created.status, JSON.stringify(created.body)).toBe(family.createdStatus);
    expect(created.body).toMatchObject({ resource_type: family.collection });
    const id = String(created.body.id);
    expect((await api.get<Json[]>(`${base}?ids=${id}`)).body.map((r) => r.id)).toEqual([id]);
    expect((await api.get<Json>(`/${family.path}/${id}`)).body.id).toBe(id);
    const patched = await api.patch<Json>(`${base}/${id}`, change);
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body).toMatchObject(change);
    if (family.deletable) {
      expect((await api.del(`${base}/${id}`)).status).toBe(family.deletion === "scheduled" ? 202 : 204);
      if (family.deletion !== "scheduled") expect((await api.get(`${base}/${id}`)).status).toBe(404);
    } else {
      expect((await api.del(`${base}/${id}`)).status).toBe(404);
    }
  });

  it("refuse members that are not in the contract, naming them", async () => {
    const reply = await api.post<Json>(base, { ...(await sample.body(sampleIds(api))), bogus_member: 1 });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ error: "VALIDATION_FAILED", validationErrors: [expect.objectContaining({ path: "bogus_member" })] });
  });

});

// Families with a read-only status, and families with credentials: each tested where it applies, none skipped.
const withStatus = tested.filter((f) => f.readOnly.includes("status"));
describe.each(withStatus.map((f) => [f.collection, f] as const))("%s", (_name, family) => {
  it("refuse read-only members on create", async () => {
    const reply = await api.post<Json>(`/v1/${family.path}`, { ...(await samples[family.collection as Collection]!.body(sampleIds(api))), status: "ready" });
    expect(reply.status).toBe(400);
    expect(reply.body.validationErrors).toEqual([expect.objectContaining({ path: "status", context: { errorType: "read_only" } })]);
  });
});

const withSecrets = tested.filter((f) => f.secrets.length > 0);
describe.each(withSecrets.map((f) => [f.collection, f] as const))("%s", (_name, family) => {
  it("answer every credential member as <secret>", async () => {
    const base = `/v1/${family.path}`;
    const created = await api.post<Json>(base, await samples[family.collection as Collection]!.body(sampleIds(api)));
    const id = String(created.body.id);
    const answers = [created.body, (await api.get(`${base}/${id}`)).body, (await api.get(`${base}?ids=${id}`)).body, (await api.get(base)).body];
    for (const answer of answers) {
      expect(JSON.stringify(answer)).not.toContain("hunter2");
      expect(JSON.stringify(answer)).toContain("<secret>");
    }
  });
});

it("every creatable family has a conformance sample or is covered elsewhere", () => {
  const missing = all.filter((f) => f.creatable && !f.singleton && !(f.collection in samples) && !COVERED_ELSEWHERE.has(f.collection));
  expect(missing.map((f) => f.collection)).toEqual([]);
  expect(withStatus.length).toBeGreaterThan(0);
  expect(withSecrets.map((f) => f.collection)).toContain("connections");
});
