// Members that need a feature set on the account (spec: target analysis_config.attributes needs an identity graph
// feature store; TargetFilter.attribute needs an identity graph) are refused with a 400 naming the member and the
// feature, and taken once the account has it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emulator, scopeBody, seeded, type Client, type Json } from "./helpers.ts";

let api: Client;
let scopeId: string;
beforeAll(async () => {
  api = await emulator();
  const ids = await seeded(api);
  scopeId = String((await api.post<Json>("/v1/scopes", scopeBody(ids.leads, String(ids.forecast)))).body.id);
});
afterAll(() => api.close());

const target = (extra: Json) => ({ name: "Analysed", scope_id: scopeId, representation: { mode: "identified" }, options: { type: "hosted_csv" }, ...extra });
const analysis = { analysis_config: { attributes: ["ig/age"] } };
const attributeFilter = { filter: { attribute: [{ name: "ig/age", _gte: 30 }] } };

describe("members that need an account feature", () => {
  it("are refused on an account without the feature, naming member and feature", async () => {
    const refused = await api.post<Json>("/v1/targets", target({ ...analysis, ...attributeFilter }));
    expect(refused.status).toBe(400);
    expect(refused.body.validationErrors).toEqual(expect.arrayContaining([
      expect.objectContaining({ path: "analysis_config.attributes", message: expect.stringMatching(/identity graph.*and a feature store/) }),
      expect.objectContaining({ path: "filter.attribute", message: expect.stringMatching(/identity graph/) }),
    ]));
    // An empty list asks for nothing.
    expect((await api.post<Json>("/v1/targets", target({ analysis_config: { attributes: [] } }))).status).toBe(201);
  });

  it("are refused on PATCH too, and taken once the account has what they need", async () => {
    const plain = await api.post<Json>("/v1/targets", target({}));
    const id = String(plain.body.id);
    const refused = await api.patch<Json>(`/v1/targets/${id}`, attributeFilter);
    expect(refused.status).toBe(400);
    expect(refused.body.validationErrors).toEqual([expect.objectContaining({ path: "filter.attribute" })]);

    const account = (await api.get<Json>("/v1/accounts/current")).body;
    expect((await api.patch<Json>(`/v1/accounts/${String(account.id)}`, { identity_graph: "v2" })).status).toBe(200);
    expect((await api.patch<Json>(`/v1/targets/${id}`, attributeFilter)).status).toBe(200);
    // The analysis dimensions need a feature store as well.
    const stillRefused = await api.post<Json>("/v1/targets", target(analysis));
    expect(stillRefused.body.validationErrors).toEqual([expect.objectContaining({
      path: "analysis_config.attributes", message: expect.stringMatching(/a feature store/),
    })]);
    expect((stillRefused.body.validationErrors as Json[])[0]?.message).not.toMatch(/identity graph/);
    expect((await api.post<Json>("/v1/feature_stores", { name: "Provided attributes" })).status).toBe(201);
    expect((await api.post<Json>("/v1/targets", target(analysis))).status).toBe(201);
  });
});
