// Every action the spec's endpoint tables list has a route: a request to it is answered by the action (an id
// that does not exist gives that action's 404), never by "No route". Removed ones answer 404 No route.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emulator, type Client, type Json } from "./helpers.ts";

let api: Client;
beforeAll(async () => {
  api = await emulator();
});
afterAll(() => api.close());

const ID = "00000000-0000-4000-8000-000000000000";

/** [method, path] as the spec's Endpoints section lists them; `ID` stands for every id. */
const LISTED: [string, string][] = [
  ["GET", "/scopes/ID/datasets"], ["GET", "/scopes/ID/payload/cohorts"], ["GET", "/scopes/ID/population/exclusion_address_level_cohorts"],
  ["GET", "/scopes/ID/analysis"], ["GET", "/scopes/ID/analysis/geography"], ["GET", "/scopes/ID/efficacy"],
  ["GET", "/connections/ID/targets"], ["POST", "/targets/ID/lookup"], ["GET", "/targets/ID/analysis"], ["GET", "/targets/ID/pdf"],
  ["GET", "/cohorts"], ["GET", "/cohorts/ID/analysis/membership"], ["GET", "/forecasts"],
  ...["attributes", "feature_stores", "atlases", "market_opportunity_analyses", "migrations", "recommenders", "persona_sets", "outcomes",
    "cohorts", "datasets", "streams", "traits", "connections", "webhook_endpoints"].flatMap((c): [string, string][] => [
    ["GET", `/${c}`], ["POST", `/${c}`], ["GET", `/${c}/ID`], ["PATCH", `/${c}/ID`], ["DELETE", `/${c}/ID`],
  ]),
  ["GET", "/atlases/ID/locations"], ["GET", "/locations"], ["GET", "/atlases/ID/logs/ingress"], ["GET", "/atlases/ID/logs/ingress/ID"],
  ["GET", "/atlases/ID/logs/ingress/ID/unplaced_rows"], ["GET", "/datasets/ID/logs/ingress"], ["GET", "/datasets/ID/logs/ingress/ID"],
  ["GET", "/streams/purchases"], ["GET", "/streams/purchases/analysis"], ["GET", "/traits.csv"], ["GET", "/traits/ID/analysis/dimensions"],
  ["GET", "/persona_sets/ID/analysis/dimensions"], ["PATCH", "/persona_sets/ID/personas/ID"], ["GET", "/persona_sets/ID/analysis/flow"],
  ["GET", "/outcomes/ID/analysis"], ["GET", "/recommenders/ID/analysis"], ["GET", "/graph"], ["GET", "/dependencies"],
  ["GET", "/accounts"], ["GET", "/accounts/current"], ["GET", "/accounts/ID"], ["GET", "/accounts/current/usage"], ["GET", "/accounts/current/usage/all"],
  ["GET", "/accounts/ID/usage"], ["GET", "/accounts/ID/billing"], ["GET", "/usages"],
  ["GET", "/accounts/current/audits"], ["GET", "/accounts/ID/audits"], ["GET", "/accounts/current/audits/ID"], ["POST", "/accounts/current/audits"],
  ["POST", "/accounts/current/audits/ID/apply"], ["GET", "/insights"], ["POST", "/insights"], ["POST", "/insights/query"], ["POST", "/insights/force_update"],
  ["POST", "/migrations/ID/force_update"], ["POST", "/connections/ID/rotate_credentials"], ["GET", "/uploads"], ["POST", "/uploads/dir/file.csv"],
  ["GET", "/uploads/dir/file.csv"], ["DELETE", "/knowledgebase/use_cases/ID"], ["PATCH", "/knowledgebase/use_cases/ID"], ["GET", "/places"],
  ...["scopes", "targets", "cohorts", "atlases", "datasets", "streams", "traits", "outcomes", "persona_sets", "recommenders", "connections",
    "attributes", "feature_stores", "market_opportunity_analyses"].flatMap((c): [string, string][] =>
    ["archive", "unarchive", "force_update"].map((a): [string, string] => ["POST", `/${c}/ID/${a}`])),
];

describe("the spec's endpoints", () => {
  it("each has a route, with and without /v1", async () => {
    const missing: string[] = [];
    for (const [method, path] of LISTED) {
      for (const prefix of ["/v1", ""]) {
        const reply = await api.call<Json>(method, prefix + path.replaceAll("ID", ID), method === "GET" || method === "DELETE" ? undefined : {});
        if (reply.status === 404 && String(reply.body?.note).startsWith("No route")) missing.push(`${method} ${prefix}${path}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("a removed one has none: POST /knowledgebase/use_cases/{id}/generate_guide", async () => {
    const reply = await api.post<Json>(`/v1/knowledgebase/use_cases/${ID}/generate_guide`, {});
    expect(reply.status).toBe(404);
    expect(reply.body.note).toMatch(/^No route/);
  });

  it("POST /migrations/{id}/force_update refreshes the migration (204, its output time stamped)", async () => {
    const parent = (await api.get<Json>("/v1/accounts/current")).body;
    const v1 = (await api.control<Json>("POST", "/accounts", { name: "v1", parent_id: parent.id })).body;
    const v2 = (await api.control<Json>("POST", "/accounts", { name: "v2", parent_id: parent.id })).body;
    const migration = await api.post<Json>("/v1/migrations", { name: "Move", type: "identity_graph_v1_to_v2", v1_account_id: v1.id, v2_account_id: v2.id });
    expect(migration.status, JSON.stringify(migration.body)).toBe(201);
    const id = String(migration.body.id);
    const refreshed = await api.post(`/v1/migrations/${id}/force_update`);
    expect(refreshed.status).toBe(204);
    const after = (await api.get<Json>(`/v1/migrations/${id}`)).body;
    expect(Date.parse(String(after.last_updated_output_at))).toBeGreaterThanOrEqual(Date.parse(String(migration.body.created_at)));
    // Migrations are never archived (they are never dependencies either).
    expect((await api.post<Json>(`/v1/migrations/${id}/archive`)).status).toBe(404);
  });
});
