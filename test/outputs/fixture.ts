// A small hand-written account: six people in four residences, their events and traits, and the resources
// the tests deliver from. Every value a test expects can be read off this page.
import { memoryResources, type Doc } from "../../emulator/world/resources.ts";
import { worldFromRecords, type PersonRecord } from "../../emulator/world/population.ts";

export const IDS = {
  everyone: "00000000-0000-4000-8000-000000000001",
  buyers: "00000000-0000-4000-8000-000000000002",
  bigSpenders: "00000000-0000-4000-8000-000000000003",
  gold: "00000000-0000-4000-8000-000000000004",
  lowValue: "00000000-0000-4000-8000-000000000005",
  outcome: "00000000-0000-4000-8000-0000000000a1",
  personaSet: "00000000-0000-4000-8000-0000000000b1",
  recommender: "00000000-0000-4000-8000-0000000000c1",
  forecast: "00000000-0000-4000-8000-0000000000d1",
  atlas: "00000000-0000-4000-8000-0000000000e1",
  atlasWithoutKeys: "00000000-0000-4000-8000-0000000000e2",
  dataset: "00000000-0000-4000-8000-0000000000f1",
  scope: "00000000-0000-4000-8000-000000000101",
  target: "00000000-0000-4000-8000-000000000201",
};

const austin = { city: "Austin", state: "TX", postcode: "78701" };
export const PEOPLE: PersonRecord[] = [
  {
    first_name: "Ann", last_name: "Lee", email: "ann.lee@example.com", alt_email: "ann@work.example", phone: "+15125550101",
    house_number_and_street: "1 Main St", ...austin, latitude: 30.2672, longitude: -97.7431,
    traits: { lifetime_value: 250, loyalty_tier: "gold", "ig/age": 41 },
    events: { transactions: [{ datetime: "2025-12-20", value: 120, category: "apparel" }, { datetime: "2025-03-01", value: 15, category: "grocery" }] },
  },
  {
    first_name: "Bob", last_name: "Lee", email: "bob.lee@example.com", phone: "+15125550102",
    house_number_and_street: "1 Main St", ...austin, latitude: 30.2672, longitude: -97.7431, address_level: true,
    traits: { lifetime_value: 5, loyalty_tier: "bronze" },
    events: { transactions: [{ datetime: "2025-06-15", value: 8, category: "grocery" }] },
  },
  {
    first_name: "Cara", last_name: "Diaz", email: "cara@example.com", phone: null,
    house_number_and_street: "5 Oak Ave", city: "Austin", state: "TX", postcode: "78702", latitude: 30.2772, longitude: -97.7431,
    traits: { lifetime_value: 90, loyalty_tier: "silver", "ig/age": 29 },
    events: { transactions: [{ datetime: "2024-01-10", value: 300, category: "electronics" }] },
  },
  {
    first_name: "Dan", last_name: "Kim", email: null, phone: "+12065550104",
    house_number_and_street: "9 Pine Rd", city: "Seattle", state: "WA", postcode: "98101", latitude: 47.6062, longitude: -122.3321,
    traits: { lifetime_value: 40, "ig/age": 35 },
  },
  {
    first_name: "Eve", last_name: "Kim", email: "eve.kim@example.com", phone: "+12065550105",
    house_number_and_street: "9 Pine Rd", city: "Seattle", state: "WA", postcode: "98101", latitude: 47.6062, longitude: -122.3321,
    traits: { loyalty_tier: "gold", "ig/age": 33 },
    events: { transactions: [{ datetime: "2025-12-30", value: 60, category: "home" }] },
  },
  {
    first_name: "Finn", last_name: "Ode", email: "finn@example.com", phone: "+16175550106",
    house_number_and_street: "2 Elm St", city: "Boston", state: "MA", postcode: "02108", latitude: 42.3601, longitude: -71.0589,
    traits: { lifetime_value: 700, loyalty_tier: "platinum", "ig/age": 52 },
  },
];

export function fixtureWorld() {
  return worldFromRecords(PEOPLE, { today: "2026-01-01" });
}

export interface Account {
  cohorts?: Doc[];
  scopes?: Doc[];
  targets?: Doc[];
  locations?: Doc[];
}

export const COHORTS: Doc[] = [
  { id: IDS.everyone, name: "Everyone" },
  { id: IDS.buyers, name: "Buyers", stream_name: "transactions" },
  { id: IDS.bigSpenders, name: "Big spenders", stream_name: "transactions", stream_conditions: [{ property: "value", _gte: 100 }] },
  { id: IDS.gold, name: "Gold", traits: [{ name: "loyalty_tier", _eq: "gold" }] },
  { id: IDS.lowValue, name: "Low value", traits: [{ name: "lifetime_value", _lt: 10 }] },
];

export const LOCATIONS: Doc[] = [
  { atlas_id: IDS.atlas, name: "Downtown", reference_key: "S1", latitude: 30.2672, longitude: -97.7431, properties: { kind: "flagship" } },
  { atlas_id: IDS.atlas, name: "North", reference_key: "S2", latitude: 30.2922, longitude: -97.7431, properties: { kind: "outlet" } },
  { atlas_id: IDS.atlas, name: "Seattle", reference_key: "S3", latitude: 47.6062, longitude: -122.3321, properties: { kind: "outlet" } },
  { atlas_id: IDS.atlasWithoutKeys, name: "Kiosk", reference_key: "S1", latitude: 42.3601, longitude: -71.0589, properties: {} },
];

export function resources(extra: Record<string, Doc[]> = {}) {
  return memoryResources({
    cohorts: COHORTS,
    outcomes: [{ id: IDS.outcome, name: "Purchase", attainment_cohort_id: IDS.buyers }],
    persona_sets: [{ id: IDS.personaSet, name: "Shoppers", cohort_id: IDS.buyers, number_of_clusters: 3 }],
    recommenders: [{ id: IDS.recommender, name: "Next category" }],
    forecasts: [{ id: IDS.forecast, name: "Forecasted spend" }],
    atlases: [
      { id: IDS.atlas, name: "Stores", output_to_locations: { name: "store_name", reference_key: "store_id" } },
      { id: IDS.atlasWithoutKeys, name: "Kiosks", output_to_locations: { name: "kiosk_name" } },
    ],
    locations: LOCATIONS,
    datasets: [{ id: IDS.dataset, name: "CRM" }],
    ...extra,
  });
}

export function scopeDoc(overrides: Doc = {}): Doc {
  return {
    id: IDS.scope, name: "Scope", preview: false,
    population: { cohort_ids: [IDS.everyone] },
    payload: { outcome_ids: [IDS.outcome] },
    ...overrides,
  };
}

export function targetDoc(overrides: Doc = {}): Doc {
  return {
    id: IDS.target, name: "Target", scope_id: IDS.scope, created_at: "2026-01-01T00:00:00Z",
    representation: { mode: "identified" }, options: { type: "hosted_csv" },
    ...overrides,
  };
}
