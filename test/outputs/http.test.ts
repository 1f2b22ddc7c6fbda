// The outputs engine over real HTTP: builds fill counts, the hosted CSV downloads with the key or its signed URL,
// lookups answer 200, analyses and the PDF are served, and usage counts what the spec bills.
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emulator, type Client, type Json } from "../emulator/helpers.ts";

let api: Client;
const ids: Record<string, string> = {};

async function create(path: string, body: Json): Promise<Json> {
  const reply = await api.post(path, body);
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body;
}

beforeAll(async () => {
  api = await emulator({ world: { size: 400, seed: 3 } });
  ids.buyers = String((await create("/v1/cohorts", { name: "Buyers", stream_name: "transactions" })).id);
  ids.gold = String((await create("/v1/cohorts", { name: "Gold", traits: [{ name: "loyalty_tier", _eq: "gold" }] })).id);
  ids.outcome = String((await create("/v1/outcomes", { name: "Will buy", attainment_cohort_id: ids.buyers })).id);
  ids.scope = String((await create("/v1/scopes", {
    name: "Pipeline", population: { cohort_ids: [ids.gold] }, payload: { outcome_ids: [ids.outcome], cohort_ids: [ids.buyers] }, preview: false,
  })).id);
  ids.hosted = String((await create("/v1/targets", { name: "Hosted", scope_id: ids.scope, representation: { mode: "identified" }, options: { type: "hosted_csv" } })).id);
  ids.gzip = String((await create("/v1/targets", { name: "Zipped", scope_id: ids.scope, representation: { mode: "aggregated", aggregate: "state" }, options: { type: "hosted_csv", gzip: true, delimiter: "|" } })).id);
  ids.lookup = String((await create("/v1/targets", { name: "Lookup", scope_id: ids.scope, representation: { mode: "identified" }, options: { type: "lookup_api" } })).id);
});
afterAll(async () => api?.close());

const csvRows = (text: string) => text.trimEnd().split("\n");

describe("outputs over HTTP", () => {
  it("fills population counts as cohorts and scopes build", async () => {
    const gold = (await api.get(`/v1/cohorts/${ids.gold}`)).body;
    const scope = (await api.get(`/v1/scopes/${ids.scope}`)).body;
    expect(gold.population_count).toBeGreaterThan(0);
    expect(gold.residence_count).toBeLessThanOrEqual(gold.population_count as number);
    expect(scope.population_count).toBe(gold.population_count);
    expect(scope.population_residence_count).toBe(gold.residence_count);
  });

  it("persona set builds count each persona's individuals and keep persona ids across builds", async () => {
    const set = await create("/v1/persona_sets", { name: "Shoppers", cohort_id: ids.buyers, number_of_clusters: 3 });
    const built = (await api.get(`/v1/persona_sets/${String(set.id)}`)).body;
    const personas = built.personas as Json[];
    expect(personas).toHaveLength(3);
    const buyers = (await api.get(`/v1/cohorts/${ids.buyers}`)).body.population_count as number;
    const counted = personas.reduce((s, p) => s + (p.individuals_count as number), 0);
    // Only buyers matched at individual level built the personas: most buyers, not all.
    expect(counted).toBeGreaterThan(buyers * 0.8);
    expect(counted).toBeLessThan(buyers);
    expect((await api.post(`/v1/persona_sets/${String(set.id)}/force_update`)).status).toBeLessThan(300);
    const rebuilt = (await api.get(`/v1/persona_sets/${String(set.id)}`)).body.personas as Json[];
    expect(rebuilt.map((p) => p.id)).toEqual(personas.map((p) => p.id));
    expect(rebuilt.map((p) => p.individuals_count)).toEqual(personas.map((p) => p.individuals_count));
  });

  it("serves the hosted CSV at its signed output_url without a key, and with the key", async () => {
    const target = (await api.get(`/v1/targets/${ids.hosted}`)).body;
    const url = String(target.output_url);
    expect(url).toMatch(/\/v1\/targets\/.+\/download\.csv\?expires=\d+&signature=[0-9a-f]{64}$/);
    const signed = await fetch(url);
    expect(signed.status).toBe(200);
    expect(signed.headers.get("content-type")).toMatch(/text\/csv/);
    const lines = csvRows(await signed.text());
    const O = ids.outcome;
    expect(lines[0]).toBe(["person_first_name", "person_last_name", "house_number_and_street", "city", "state", "postcode", "email", "phone",
      `svc_outcome_${O}_propensity_percentile`, `svc_outcome_${O}_propensity_probability`, `svc_outcome_${O}_propensity_lift`, `svc_cohort_${ids.buyers}_member`].join(","));
    const scope = (await api.get(`/v1/scopes/${ids.scope}`)).body;
    expect(lines).toHaveLength((scope.population_count as number) + 1);
    const keyed = await api.get(`/v1/targets/${ids.hosted}/download.csv`);
    expect(keyed.status).toBe(200);
    expect(keyed.body).toBe(lines.join("\n") + "\n");
  });

  it("refuses a download without a key or with a tampered signature", async () => {
    expect((await api.get(`/v1/targets/${ids.hosted}/download.csv`, null as unknown as string)).status).toBe(401);
    // Change the signature's first hex digit (to another one, whatever it was).
    const url = String((await api.get(`/v1/targets/${ids.hosted}`)).body.output_url)
      .replace(/signature=(.)/, (_m, c: string) => `signature=${c === "0" ? "1" : "0"}`);
    const tampered = await fetch(url);
    expect(tampered.status).toBe(403);
    expect(((await tampered.json()) as Json).note).toMatch(/signature/);
  });

  it("honours gzip and delimiter on an aggregated target", async () => {
    const response = await fetch(`${api.url}/v1/targets/${ids.gzip}/download.csv`, { headers: { authorization: `Bearer ${api.apiKey}` } });
    expect(response.headers.get("content-type")).toBe("application/gzip");
    const text = gunzipSync(Buffer.from(await response.arrayBuffer())).toString();
    const header = csvRows(text)[0]?.split("|");
    expect(header?.slice(0, 2)).toEqual(["state", "count"]);
    expect(header).toContain(`count_svc_outcome_${ids.outcome}_propensity_lift`);
    expect(header).toContain(`count_svc_cohort_${ids.buyers}_member`);
  });

  it("looks a person up by e-mail (200) and counts the call and its billed predictions", async () => {
    const csv = String((await api.get(`/v1/targets/${ids.hosted}/download.csv`)).body);
    const row = csvRows(csv).slice(1).map((l) => l.split(",")).find((cells) => cells[6] !== "") as string[];
    const before = (await api.get("/v1/accounts/current/usage")).body.metrics as Json;
    const reply = await api.post(`/v1/targets/${ids.lookup}/lookup`, { email: row[6] });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      email: row[6], match_type: "email", identity_provider: "identity_graph",
      [`svc_outcome_${ids.outcome}_propensity_percentile`]: Number(row[8]),
      [`svc_outcome_${ids.outcome}_propensity_probability`]: Number(row[9]),
    });
    const after = (await api.get("/v1/accounts/current/usage")).body.metrics as Json;
    expect(after.lookup_api_calls).toBe((before.lookup_api_calls as number) + 1);
    // Percentile and probability are billed; lift and the cohort flag are not predictions billed.
    expect(after.predictive_data).toBe((before.predictive_data as number) + 2);
    const unmatched = await api.post(`/v1/targets/${ids.lookup}/lookup`, { email: "nobody@nowhere.example" });
    expect(unmatched.status).toBe(200);
    expect(unmatched.body.error).toMatch(/no person/);
    const insufficient = await api.post(`/v1/targets/${ids.lookup}/lookup`, { phone: "5550100" });
    expect(insufficient.status).toBe(400);
    expect(insufficient.body).toMatchObject({ error: "VALIDATION_FAILED", validationErrors: [{ path: "identity_sets" }] });
    // The body is checked by the contract: wrong types and unknown members are named, blank values identify nobody.
    const refusals: [Json, string, string][] = [
      [{ email: 5 }, "email", "must be a string"],
      [{ email: row[6], shoe_size: "9" }, "shoe_size", "is not a recognized field"],
      [{ identity_sets: [{ email: ["a@example.com"] }] }, "identity_sets[0].email", "must be a string"],
      [{ email: "  " }, "identity_sets", "not enough to identify a person"],
    ];
    for (const [body, path, message] of refusals) {
      const refused = await api.post(`/v1/targets/${ids.lookup}/lookup`, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.validationErrors, JSON.stringify(body)).toEqual(expect.arrayContaining([expect.objectContaining({ path, message: expect.stringContaining(message) })]));
    }
    expect((await api.post(`/v1/targets/${ids.hosted}/lookup`, { email: row[6] })).status).toBe(400);
  });

  it("bills each target build's delivered predictions, lift excluded", async () => {
    const scope = (await api.get(`/v1/scopes/${ids.scope}`)).body;
    const before = ((await api.get("/v1/accounts/current/usage")).body.metrics as Json).predictive_data as number;
    expect((await api.post(`/v1/targets/${ids.hosted}/force_update`)).status).toBeLessThan(300);
    const after = ((await api.get("/v1/accounts/current/usage")).body.metrics as Json).predictive_data as number;
    expect(after - before).toBe((scope.population_count as number) * 2);
  });

  it("previews a target and redirects its PDF to a signed URL of a real PDF", async () => {
    const preview = await api.post(`/v1/targets/${ids.hosted}/preview`);
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({ target_id: ids.hosted });
    const redirect = await fetch(`${api.url}/v1/targets/${ids.hosted}/pdf`, { headers: { authorization: `Bearer ${api.apiKey}` }, redirect: "manual" });
    expect(redirect.status).toBe(302);
    const location = String(redirect.headers.get("location"));
    expect(location).toMatch(/analysis\.pdf\?expires=\d+&signature=/);
    const pdf = await fetch(location);
    expect(pdf.headers.get("content-type")).toBe("application/pdf");
    expect(Buffer.from(await pdf.arrayBuffer()).subarray(0, 5).toString()).toBe("%PDF-");
  });

  it("has no file or lookup before a target's first build, and empty scope geography before the scope's", async () => {
    expect((await api.control("PUT", "/builds", { scopes: "manual", targets: "manual" })).status).toBe(200);
    try {
      const scope = await create("/v1/scopes", { name: "Later", population: { cohort_ids: [ids.gold] }, payload: { outcome_ids: [ids.outcome] }, preview: false });
      expect((await api.get(`/v1/scopes/${String(scope.id)}/analysis/geography`)).body).toEqual({ states: {}, postcodes: {} });
      const hosted = await create("/v1/targets", { name: "Later", scope_id: scope.id, representation: { mode: "identified" }, options: { type: "hosted_csv" } });
      const early = await fetch(String(hosted.output_url));
      expect(early.status).toBe(409);
      expect(((await early.json()) as Json).note).toMatch(/has not delivered yet/);
      await api.control("POST", "/builds/advance", { to: "ready" });
      expect((await fetch(String((await api.get(`/v1/targets/${String(hosted.id)}`)).body.output_url))).status).toBe(200);
      expect(Object.keys((await api.get(`/v1/scopes/${String(scope.id)}/analysis/geography`)).body.states as Json).length).toBeGreaterThan(0);
    } finally {
      await api.control("PUT", "/builds", { scopes: "immediate", targets: "immediate" });
    }
  });

  it("serves every analysis", async () => {
    const scope = (await api.get(`/v1/scopes/${ids.scope}`)).body;
    const analysis = await api.get(`/v1/scopes/${ids.scope}/analysis`);
    expect(analysis.body).toMatchObject({ scope_individuals_count: scope.population_count, eligible_individuals_count: 400 });
    const geography = (await api.get(`/v1/scopes/${ids.scope}/analysis/geography`)).body;
    const states = geography.states as Record<string, Json>;
    expect(Object.values(states).reduce((s, v) => s + (v.individuals as number), 0)).toBe(scope.population_count);
    expect((await api.get(`/v1/scopes/${ids.scope}/efficacy`)).body.outcomes).toHaveLength(1);
    expect((await api.get(`/v1/targets/${ids.hosted}/analysis`)).body.individuals_count).toBe(scope.population_count);
    expect((await api.get(`/v1/cohorts/${ids.gold}/analysis/membership`)).body.membership).toHaveLength(12);
    expect((await api.get(`/v1/outcomes/${ids.outcome}/analysis`)).body.strategies).toHaveLength(10);
    const recommender = String((await create("/v1/recommenders", { name: "Next product", stream_name: "transactions", stream_property_name: "product" })).id);
    expect((await api.get(`/v1/recommenders/${recommender}/analysis`)).body.ranks).toHaveLength(10);
    expect((await api.get("/v1/streams/does-not-exist/analysis")).status).toBe(404);
    expect((await api.get(`/v1/scopes/00000000-0000-4000-8000-000000000000/analysis`)).status).toBe(404);
  });
});
