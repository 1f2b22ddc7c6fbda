// A valid create body per family, creating what it depends on first; and a valid change for each.
import type { Client, Json } from "./helpers.ts";

export interface Sample {
  body(api: Client, key?: string): Promise<Json>;
  /** A merge patch that changes the resource. */
  change: Json;
}

async function create(api: Client, path: string, body: Json, key?: string): Promise<string> {
  const reply = await api.post<Json>(path, body, key);
  if (reply.status !== 201) throw new Error(`POST ${path} answered ${reply.status}: ${JSON.stringify(reply.body)}`);
  return String(reply.body.id);
}

export async function leads(api: Client, key?: string): Promise<string> {
  const cohorts = (await api.get<Json[]>("/v1/cohorts", key)).body;
  return String(cohorts.find((c) => c.name === "Leads")?.id);
}

export const samples: Record<string, Sample> = {
  cohorts: {
    body: async () => ({ name: "Big spenders", stream_name: "transactions", stream_conditions: [{ property: "amount", _gte: 100 }] }),
    change: { name: "Bigger spenders" },
  },
  connections: {
    body: async () => ({ name: "Warehouse", options: { type: "postgres", host: "db.example.com", port: 5432, database: "d", schema: "s", user: "u", password: "hunter2" } }),
    change: { name: "Main warehouse" },
  },
  outcomes: {
    body: async (api, key) => ({ name: "Will buy", attainment_cohort_id: await leads(api, key) }),
    change: { name: "Will buy soon" },
  },
  persona_sets: {
    body: async (api, key) => ({ name: "Personas", cohort_id: await leads(api, key), number_of_clusters: 4 }),
    change: { name: "Shoppers" },
  },
  recommenders: {
    body: async () => ({ name: "Next product", stream_name: "transactions", stream_property_name: "product" }),
    change: { name: "Next best product" },
  },
  scopes: {
    body: async (api, key) => ({ name: "Pipeline", population: { cohort_ids: [await leads(api, key)] }, payload: { outcome_ids: [await create(api, "/v1/outcomes", { name: "o", attainment_cohort_id: await leads(api, key) }, key)] }, preview: true }),
    change: { name: "Pipeline 2" },
  },
  targets: {
    body: async (api, key) => ({
      name: "Hosted", scope_id: await create(api, "/v1/scopes", await samples.scopes!.body(api, key), key),
      representation: { mode: "identified" }, options: { type: "hosted_csv" },
    }),
    change: { name: "Hosted file" },
  },
  streams: {
    body: async () => ({ name: `purchases-${Math.random().toString(36).slice(2, 8)}`, properties: { amount: { type: "double" } } }),
    change: { description: "Purchases" },
  },
  traits: {
    body: async () => ({ name: "favourite_colour", category: "preferences" }),
    change: { description: "Favourite colour" },
  },
  attributes: {
    body: async () => ({ name: "ig/age_band", statistical_type: "categorical_ordinal" }),
    change: { unit: "years" },
  },
  feature_stores: {
    body: async () => ({ name: "Store" }),
    change: { name: "Main store" },
  },
  atlases: {
    body: async () => ({ name: "Stores", options: { type: "hosted_csv", upload_directory: "stores" }, output_to_locations: { name: "store_name", latitude: "lat", longitude: "lon" } }),
    change: { name: "Our stores" },
  },
  datasets: {
    body: async () => ({ name: "Orders", identity_sets: { main: { email: "email" } }, options: { type: "hosted_csv", upload_directory: "orders" } }),
    change: { name: "All orders" },
  },
  webhook_endpoints: {
    body: async () => ({ url: "https://hooks.example.com/audience", enabled_events: ["resource.errored"] }),
    change: { description: "Errors" },
  },
  use_cases: {
    body: async () => ({ name: "Win back lapsed customers" }),
    change: { guide: "Step one" },
  },
  places: {
    body: async () => ({ name: "Head office", geometry: { type: "Point", coordinates: [-74, 40.7] } }),
    change: { description: "Deprecated, still accepted" },
  },
  market_opportunity_analyses: {
    body: async () => ({ name: "Market" }),
    change: { name: "Market 2" },
  },
};
