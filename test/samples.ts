// One valid wire (snake_case) body per family, for every layer's tests: the emulator's conformance, the
// provider's lifecycle. The camelCase form a program writes is derived from it with the contract's mapping. A plain
// family (one the contract lets a name alone create) needs none written here: it is created by name and renamed.
import { families, fromWire, validate, type Collection, type FamilyDef } from "pulumi-audience/sdk/contract";

export type Json = Record<string, unknown>;

/** What a sample body names, supplied by the suite that uses it. */
export interface SampleIds {
  /** The id of the account's seeded Leads cohort. */
  leads(): Promise<string>;
  /** Creates a resource from a wire body and answers its id. */
  create(collection: Collection, body: Json): Promise<string>;
}

export interface Sample {
  /** A valid create body, creating what it names first. */
  body(ids: SampleIds): Promise<Json>;
  /** Members rewritten as a program rewrites them (whole top-level members); also a merge patch that changes the resource. */
  change(body: Json): Json;
  /** The minimal merge patch a client sends for `change`, where it is not `change` itself. */
  patch?: Json;
  /** A change of a create-only member, which replaces the resource; creating what it names first. */
  replace?(ids: SampleIds): Promise<Json>;
}

/** Another connection, which a replaced atlas or dataset reads from instead. */
const otherConnection = (ids: SampleIds) => ids.create("connections", { name: "Bucket", options: { type: "s3_csv", bucket_name: "exports", aws_region: "eu-west-1" } });

const written: Partial<Record<Collection, Sample>> = {
  cohorts: {
    body: async () => ({ name: "Big spenders", stream_name: "transactions", stream_conditions: [{ property: "amount", _gte: 100 }] }),
    change: () => ({ stream_conditions: [{ property: "amount", _gte: 250 }] }),
  },
  connections: {
    body: async () => ({ name: "Warehouse", options: { type: "postgres", host: "db.example.com", port: 5432, database: "d", schema: "s", user: "u", password: "hunter2" } }),
    change: () => ({ name: "Main warehouse" }),
    replace: async () => ({ options: { type: "bigquery", project_id: "analytics", dataset_name: "audience" } }),
  },
  outcomes: {
    body: async (ids) => ({ name: "Will buy", attainment_cohort_id: await ids.leads() }),
    change: () => ({ name: "Will buy soon" }),
  },
  persona_sets: {
    body: async (ids) => ({ name: "Personas", cohort_id: await ids.leads(), number_of_clusters: 4 }),
    change: () => ({ number_of_clusters: 5 }),
  },
  recommenders: {
    body: async () => ({ name: "Next product", stream_name: "transactions", stream_property_name: "product" }),
    change: () => ({ name: "Next best product" }),
  },
  scopes: {
    body: async (ids) => ({
      name: "Pipeline", population: { cohort_ids: [await ids.leads()] },
      payload: { cohort_ids: [await ids.leads()], location: { max_distance: 5000 } }, preview: true,
    }),
    change: (body) => ({ payload: { cohort_ids: (body.payload as Json).cohort_ids, location: { min_distance: 100 } } }),
    patch: { payload: { location: { max_distance: null, min_distance: 100 } } },
  },
  targets: {
    body: async (ids) => ({
      name: "Hosted", scope_id: await ids.create("scopes", await samples.scopes!.body(ids)),
      representation: { mode: "identified" }, options: { type: "hosted_csv" },
    }),
    change: () => ({ options: { type: "hosted_csv", delimiter: ";" } }),
    patch: { options: { delimiter: ";" } },
    replace: async () => ({ options: { type: "lookup_api" } }),
  },
  streams: {
    body: async () => ({ name: `purchases-${Math.random().toString(36).slice(2, 8)}`, properties: { amount: { type: "double" } } }),
    change: () => ({ description: "Purchases" }),
  },
  traits: {
    body: async () => ({ name: "favourite_colour", category: "preferences" }),
    change: () => ({ description: "Favourite colour" }),
  },
  attributes: {
    body: async () => ({ name: "ig/age_band", statistical_type: "categorical_ordinal" }),
    change: () => ({ unit: "years" }),
  },
  feature_stores: {
    body: async () => ({ name: "Store" }),
    change: () => ({ name: "Main store" }),
  },
  atlases: {
    body: async () => ({ name: "Stores", options: { type: "hosted_csv", upload_directory: "stores" }, output_to_locations: { name: "store_name", latitude: "lat", longitude: "lon" } }),
    change: () => ({ name: "Our stores" }),
    replace: async (ids) => ({ connection_id: await otherConnection(ids), options: { type: "s3_csv", object_key: "stores.csv" } }),
  },
  datasets: {
    body: async () => ({ name: "Orders", identity_sets: { main: { email: "email" } }, options: { type: "hosted_csv", upload_directory: "orders" } }),
    change: () => ({ name: "All orders" }),
    replace: async (ids) => ({ connection_id: await otherConnection(ids), options: { type: "s3_csv", prefix: "orders/" } }),
  },
  webhook_endpoints: {
    body: async () => ({ url: "https://hooks.example.com/audience", enabled_events: ["resource.errored"] }),
    change: () => ({ description: "Errors" }),
  },
  use_cases: {
    body: async () => ({ name: "Win back lapsed customers" }),
    change: () => ({ guide: "Step one" }),
  },
  places: {
    body: async () => ({ name: "Head office", geojson: { type: "Point", coordinates: [-74, 40.7] } }),
    change: () => ({ description: "Deprecated, still accepted" }),
  },
  market_opportunity_analyses: {
    body: async () => ({ name: "Market" }),
    change: () => ({ name: "Market 2" }),
  },
  accounts: {
    body: async () => ({ name: "Regional brand" }),
    change: () => ({ name: "Regional brand (west)" }),
  },
};

/** The sample of a family with none written above, when the contract lets a name alone create one. */
function plainSample(family: FamilyDef): Sample | undefined {
  const name = `Sample ${family.className}`;
  if (!family.creatable || family.singleton || !validate(family.create, { name }).ok) return undefined;
  return { body: async () => ({ name }), change: () => ({ name: `${name} renamed` }) };
}

/** Every family's sample: written above, or a plain family's by name. */
export const samples: Partial<Record<Collection, Sample>> = Object.fromEntries((Object.entries(families) as [Collection, FamilyDef][])
  .flatMap(([collection, family]) => {
    const sample = written[collection] ?? plainSample(family);
    return sample === undefined ? [] : [[collection, sample]];
  }));

/** A family's wire body (or part of one) in the camelCase a program writes. */
export function camel(collection: Collection, wire: Json): Json {
  return fromWire(families[collection].create, wire) as Json;
}
