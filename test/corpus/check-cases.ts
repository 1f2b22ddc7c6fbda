// Bad inputs a program writes, one row per case: the provider's check must refuse each, naming the camelCase
// property, before any request. Inputs start from each family's wire sample in camelCase (test/samples.ts).
import type { Collection } from "pulumi-audience/sdk/contract";
import { camel, samples, type Json, type SampleIds } from "../samples.ts";
import { sampled } from "./http-cases.ts";

export interface CheckCase {
  name: string;
  collection: Collection;
  /** The program's inputs, from the family's camelCase sample. */
  inputs(sample: Json): Json;
  /** The property the failure names. */
  property: string;
}

/** Ids a sample names, for bodies no service reads (a check that refuses them asks nothing, so any uuid stands in). */
export const placeholderIds: SampleIds = {
  leads: async () => "7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
  create: async () => "2f0c7c8e-1d2b-4c55-9a0e-6f1b2a3c4d5e",
};

/** Every sampled family's inputs in camelCase, naming the resources `ids` gives. */
export async function sampleInputs(ids: SampleIds = placeholderIds): Promise<Partial<Record<Collection, Json>>> {
  const out: Partial<Record<Collection, Json>> = {};
  for (const c of sampled) out[c] = camel(c, await samples[c]!.body(ids));
  return out;
}

const BAD_DATES = ["2024-13-45", "0000-00-00", "2023-02-29", "2024-06-31", "2024/01/01", "1 Jan 2024"];

function familyRows(c: Collection): CheckCase[] {
  const member = c === "webhook_endpoints" ? "url" : "name";
  return [
    { name: `${c}: an unknown member`, collection: c, inputs: (s) => ({ ...s, colour: "red" }), property: "colour" },
    { name: `${c}: ${member} as a number`, collection: c, inputs: (s) => ({ ...s, [member]: 42 }), property: member },
    { name: `${c}: ${member} as a list`, collection: c, inputs: (s) => ({ ...s, [member]: ["a"] }), property: member },
    { name: `${c}: without ${member}`, collection: c, inputs: (s) => ({ ...s, [member]: undefined }), property: member },
    { name: `${c}: the read-only createdAt`, collection: c, inputs: (s) => ({ ...s, createdAt: "2024-01-01T00:00:00Z" }), property: "createdAt" },
    { name: `${c}: waitFor not allowed`, collection: c, inputs: (s) => ({ ...s, waitFor: "soon" }), property: "waitFor" },
    { name: `${c}: deletionMode not allowed`, collection: c, inputs: (s) => ({ ...s, deletionMode: "shred" }), property: "deletionMode" },
  ];
}

const specRows: CheckCase[] = [
  { name: "blank cohort name", collection: "cohorts", inputs: (s) => ({ ...s, name: "  " }), property: "name" },
  { name: "empty scope name", collection: "scopes", inputs: (s) => ({ ...s, name: "" }), property: "name" },
  { name: "a place's geojson that is no GeoJSON geometry", collection: "places", inputs: (s) => ({ ...s, geojson: { type: "Circle", radius: 3 } }), property: "geojson" },
  {
    name: "stream condition: unreadable operator", collection: "cohorts",
    inputs: (s) => ({ ...s, streamConditions: [{ property: "amount", _between: [1, 2] }] }), property: "streamConditions[0]._between",
  },
  {
    name: "stream condition: _on_or_after later than _on_or_before", collection: "cohorts",
    inputs: (s) => ({ ...s, streamConditions: [{ property: "datetime", _on_or_after: "2024-02-01", _on_or_before: "2024-01-01" }] }), property: "streamConditions[0]._on_or_after",
  },
  ...BAD_DATES.map((date): CheckCase => ({
    name: `stream condition date ${date}`, collection: "cohorts",
    inputs: (s) => ({ ...s, streamConditions: [{ property: "datetime", _on_or_before: date }] }), property: "streamConditions[0]._on_or_before",
  })),
  ...BAD_DATES.map((date): CheckCase => ({
    name: `outcome predictors.maxObservationDate ${date}`, collection: "outcomes",
    inputs: (s) => ({ ...s, predictors: { maxObservationDate: date } }), property: "predictors.maxObservationDate",
  })),
  {
    name: "scope payload.maxAttributeObservationDate 2024-13-45", collection: "scopes",
    inputs: (s) => ({ ...s, payload: { ...(s.payload as Json), maxAttributeObservationDate: "2024-13-45" } }), property: "payload.maxAttributeObservationDate",
  },
  {
    name: "persona set attributeMaxObservationDate 0000-00-00", collection: "persona_sets",
    inputs: (s) => ({ ...s, attributeMaxObservationDate: "0000-00-00" }), property: "attributeMaxObservationDate",
  },
  {
    name: "atlas: a location property named reference_key", collection: "atlases",
    inputs: (s) => ({ ...s, outputToLocations: { name: "n", properties: { reference_key: { columnName: "k" } } } }), property: "outputToLocations.properties.reference_key",
  },
  {
    name: "atlas: geometry and coordinates together", collection: "atlases",
    inputs: (s) => ({ ...s, outputToLocations: { geometry: "g", latitude: "lat", longitude: "lon" } }), property: "outputToLocations.latitude",
  },
  {
    name: "dataset: insufficient identity set fields", collection: "datasets",
    inputs: (s) => ({ ...s, identitySets: { main: { personFirstName: "first" } } }), property: "identitySets.main",
  },
  {
    name: "cohort: locationConditions and placeConditions together", collection: "cohorts",
    inputs: (s) => ({ ...s, locationConditions: [{ atlasId: "2f0c7c8e-1d2b-4c55-9a0e-6f1b2a3c4d5e" }], placeConditions: [{ placeId: "x" }] }), property: "placeConditions",
  },
  {
    name: "scope: _matches with _gt in one location property condition", collection: "scopes",
    inputs: (s) => ({ ...s, payload: { ...(s.payload as Json), location: { conditions: [{ property: "size", _matches: "^big", _gt: 3 }] } } }), property: "payload.location.conditions[0]._gt",
  },
  ...["not-a-uuid", "00000000-0000-0000-0000", "12345"].map((bad): CheckCase => ({
    name: `scope population.cohortIds[0] ${bad}`, collection: "scopes",
    inputs: (s) => ({ ...s, population: { cohortIds: [bad] } }), property: "population.cohortIds[0]",
  })),
  { name: "target: scopeId not a uuid", collection: "targets", inputs: (s) => ({ ...s, scopeId: "scope-1" }), property: "scopeId" },
  { name: "target: representation.mode not allowed", collection: "targets", inputs: (s) => ({ ...s, representation: { mode: "everything" } }), property: "representation.mode" },
  {
    name: "connection: a port out of range", collection: "connections",
    inputs: (s) => ({ ...s, options: { ...(s.options as Json), port: 70000 } }), property: "options.port",
  },
  { name: "connection: an unknown type", collection: "connections", inputs: (s) => ({ ...s, options: { type: "ftp" } }), property: "options.type" },
  { name: "persona set: numberOfClusters as text", collection: "persona_sets", inputs: (s) => ({ ...s, numberOfClusters: "five" }), property: "numberOfClusters" },
  { name: "webhook endpoint: an event that does not exist", collection: "webhook_endpoints", inputs: (s) => ({ ...s, enabledEvents: ["resource.exploded"] }), property: "enabledEvents[0]" },
  { name: "webhook endpoint: the read-only secret", collection: "webhook_endpoints", inputs: (s) => ({ ...s, secret: "whsec_mine" }), property: "secret" },
  { name: "waitTimeoutSeconds negative", collection: "scopes", inputs: (s) => ({ ...s, waitTimeoutSeconds: -5 }), property: "waitTimeoutSeconds" },
  { name: "adoptId empty", collection: "cohorts", inputs: (s) => ({ ...s, adoptId: "" }), property: "adoptId" },
  { name: "adoptId not a uuid", collection: "cohorts", inputs: (s) => ({ ...s, adoptId: "not-a-uuid" }), property: "adoptId" },
  { name: "an account audience:accounts does not define", collection: "cohorts", inputs: (s) => ({ ...s, account: "north" }), property: "account" },
];

export const checkCases: CheckCase[] = [...sampled.flatMap(familyRows), ...specRows];
