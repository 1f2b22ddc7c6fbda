// The service's own published client (@fdy/faraday-js, generated from the service's OpenAPI) against the emulator:
// every API group it has is called, and each answer is held to the client's model of it: the members the model
// reads without a presence check are present, and the answer goes through the model (FromJSON) and back (ToJSON)
// without an error (an unknown union variant or an unreadable date throws there).
import { createRequire } from "node:module";
import type * as Fdy from "@fdy/faraday-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emulator, seeded, type Client } from "./helpers.ts";

// A CommonJS package whose exports are re-exported at run time: ES import cannot see its names.
const fdy = createRequire(import.meta.url)("@fdy/faraday-js") as typeof Fdy;

type Json = Record<string, unknown>;
type Models = Record<string, ((json: unknown) => unknown) | undefined>;
const models = fdy as unknown as Models;

let api: Client;
let client: Fdy.FaradayClient;
let leads: string;
let customers: string;
let forecast: string;
beforeAll(async () => {
  api = await emulator();
  // The client's own entry point, holding one API object per group.
  client = new fdy.FaradayClient(new fdy.Configuration({
    basePath: `${api.url}/v1`, accessToken: api.apiKey,
    middleware: [{
      async post({ response }) {
        if (response.headers.get("content-type")?.includes("json")) lastAnswer = (await response.clone().json()) as Json | Json[];
        return response;
      },
    }],
  }));
  const ids = await seeded(api);
  leads = ids.leads;
  customers = ids.customers;
  forecast = String(ids.forecast);
});
afterAll(() => api.close());

/** The members `model`'s reader takes without checking they exist: the ones the client needs. */
function requiredMembers(model: string): string[] {
  const reader = models[`${model}FromJSONTyped`];
  if (!reader) throw new Error(`the client has no model ${model}`);
  return [...reader.toString().matchAll(/'([a-z0-9_]+)': (?!!runtime_1\.exists)/g)].map((m) => m[1] as string);
}

const checked: string[] = [];

/** The JSON of the last answer the client received (its response middleware records it). */
let lastAnswer: Json | Json[] | undefined;

/** Awaits a client call and holds each item of the answer it received to `model`. */
async function accepted(model: string, call: Promise<unknown>): Promise<Json> {
  // The request is on its way; its answer arrives after this.
  lastAnswer = undefined;
  await call;
  const json = lastAnswer as Json | Json[] | undefined;
  if (json === undefined) throw new Error(`${model}: the answer was not JSON`);
  const fromJson = models[`${model}FromJSON`] as (j: unknown) => unknown;
  const toJson = models[`${model}ToJSON`] as (v: unknown) => unknown;
  for (const item of Array.isArray(json) ? json : [json]) {
    const missing = requiredMembers(model).filter((k) => item[k] === undefined || item[k] === null);
    expect(missing, `${model} ${JSON.stringify(item).slice(0, 200)}`).toEqual([]);
    expect(() => toJson(fromJson(item)), model).not.toThrow();
  }
  checked.push(model);
  return Array.isArray(json) ? json[0] ?? {} : json;
}

/** Holds `value` to the client's object model `model`: an object, not an array, with every member the model needs. */
function shaped(model: string, value: unknown): Json {
  expect(value !== null && typeof value === "object" && !Array.isArray(value), `${model}: ${JSON.stringify(value)?.slice(0, 120)}`).toBe(true);
  const json = value as Json;
  expect(requiredMembers(model).filter((k) => json[k] === undefined || json[k] === null), model).toEqual([]);
  return json;
}

/**
 * Holds an outcome analysis's `bias` to OutcomeAnalysisBias member by member. The client's reader takes a wrong
 * shape silently (an array reads as members that are all undefined), so presence, enum values and types are checked here.
 */
function checkBias(value: unknown): void {
  const bias = shaped("OutcomeAnalysisBias", value);
  const data = shaped("OutcomeAnalysisBiasData", bias.data);
  const distributions = [
    ["age", "OutcomeAnalysisBiasDataAgeDistribution", fdy.OutcomeAnalysisBiasDataAgeDistributionLevelEnum],
    ["gender", "OutcomeAnalysisBiasDataGenderProportion", fdy.OutcomeAnalysisBiasDataGenderProportionLevelEnum],
  ] as const;
  for (const [member, model, levels] of distributions) {
    const distribution = shaped(model, data[member]);
    expect(Object.values(levels), `${model}.level`).toContain(distribution.level);
    for (const label of ["positives", "candidates", "negatives"]) {
      if (label in distribution) expect(Array.isArray(distribution[label]), `${model}.${label} is an array`).toBe(true);
    }
  }
  for (const member of ["fairness", "power", "predictions"]) {
    const subpopulations = bias[member] as unknown[];
    expect(Array.isArray(subpopulations) && subpopulations.length > 0, `bias.${member} lists subpopulations`).toBe(true);
    for (const subpopulation of subpopulations as Json[]) {
      expect((subpopulation.metrics as unknown[]).length, `bias.${member} metrics`).toBeGreaterThan(0);
      for (const metric of (subpopulation.metrics as unknown[]).map((m) => shaped("OutcomeAnalysisBiasSubpopulationMetric", m))) {
        expect([typeof metric.level, typeof metric.name, typeof metric.value], `bias.${member} metric`).toEqual(["string", "string", "number"]);
      }
    }
  }
  const summary = shaped("OutcomeAnalysisBiasSummary", bias.summary);
  for (const member of requiredMembers("OutcomeAnalysisBiasSummary")) expect(typeof summary[member], `summary.${member}`).toBe("boolean");
}

describe("the published client", () => {
  it("runs every API group against the emulator, and its models accept every answer", async () => {
    const accounts = client.accounts;
    const current = await accepted("Account", accounts.getCurrentAccount());
    await accepted("Account", accounts.getAccounts());
    await accepted("Account", accounts.getAccount(String(current.id)));
    await accepted("AccountBilling", client.billing.getCurrentAccountBilling());
    await accepted("AccountUsage", client.usage.getUsages());

    const uploads = client.uploads;
    await uploads.createUpload("people", "part.csv", new Blob(["email,ordered,state\na@example.com,2024-01-02,CA\n"]));
    await accepted("Upload", uploads.getUploads());
    expect(await (await uploads.getUpload("people", "part.csv")).text()).toContain("a@example.com");

    const cohorts = client.cohorts;
    const cohort = await accepted("Cohort", cohorts.createCohort({ name: "Buyers" } as never));
    await accepted("Cohort", cohorts.getCohorts());
    await accepted("Cohort", cohorts.updateCohort(String(cohort.id), { name: "Big buyers" } as never));
    await accepted("CohortAnalysisMembership", cohorts.getCohortAnalysisMembership(leads));

    const datasets = client.datasets;
    const dataset = await accepted("Dataset", datasets.createDataset({
      name: "People", identity_sets: { customer: { email: "email" } }, options: { type: "hosted_csv", upload_directory: "people" },
      output_to_streams: { orders: { data_map: { datetime: { column_name: "ordered", format: "date_iso8601" } } } },
    } as never));
    await accepted("Dataset", datasets.getDatasets());
    await accepted("Dataset", datasets.getDataset(String(dataset.id)));

    const streams = client.streams;
    await accepted("Stream", streams.getStreams());
    await accepted("Stream", streams.getStream("orders"));

    const traits = client.traits;
    const trait = await accepted("Trait", traits.createTrait({ name: "loyalty_tier" } as never));
    await accepted("Trait", traits.getTraits());
    await accepted("Trait", traits.getTrait(String(trait.id)));

    const outcomes = client.outcomes;
    const outcome = await accepted("Outcome", outcomes.createOutcome({ name: "Converts", attainment_cohort_id: customers } as never));
    await accepted("Outcome", outcomes.getOutcomes());
    const analysis = await accepted("OutcomeAnalysis", outcomes.getOutcomeAnalysis(String(outcome.id)));
    checkBias(analysis.bias);

    const personaSets = client.personaSets;
    const personaSet = await accepted("PersonaSet", personaSets.createPersonaSet({ name: "Shoppers", cohort_id: leads } as never));
    await accepted("PersonaSet", personaSets.getPersonaSets());
    await accepted("PersonaSetAnalysisFlow", personaSets.getPersonaSetAnalysisFlow(String(personaSet.id)));

    const recommenders = client.recommenders;
    await accepted("Recommender", recommenders.createRecommender({ name: "Next order", stream_name: "orders", stream_property_name: "datetime" } as never));
    await accepted("Recommender", recommenders.getRecommenders());

    const places = client.places;
    const place = await accepted("Place", places.createPlace({ name: "Store", geojson: { type: "Point", coordinates: [-73.2, 44.5] } } as never));
    await accepted("Place", places.getPlaces());
    await accepted("Place", places.getPlace(String(place.id)));

    const scopes = client.scopes;
    const scope = await accepted("Scope", scopes.createScope({
      name: "Discounting", population: { cohort_ids: [leads] }, payload: { outcome_ids: [String(outcome.id)], forecast_ids: [forecast] }, preview: false,
    } as never));
    await accepted("Scope", scopes.getScopes());
    await accepted("Dataset", scopes.getScopeDatasets(String(scope.id)));
    await accepted("Cohort", scopes.getScopePayloadCohorts(String(scope.id)));

    const targets = client.targets;
    const target = await accepted("Target", targets.createTarget({
      name: "Hosted", scope_id: String(scope.id), representation: { mode: "identified" }, options: { type: "hosted_csv" },
    } as never));
    await accepted("Target", targets.getTargets());
    await accepted("Target", targets.getTarget(String(target.id)));
    await accepted("InlineResponse200", targets.createTargetPreview(String(target.id)));
    const lookupTarget = await accepted("Target", targets.createTarget({
      name: "Lookup", scope_id: String(scope.id), representation: { mode: "identified" }, options: { type: "lookup_api" },
    } as never));
    await accepted("TargetLookupResponse", targets.lookupOnTarget(String(lookupTarget.id), { email: "nobody@example.com" } as never));

    const connections = client.connections;
    await accepted("Connection", connections.getConnections());
    await accepted("GraphEdge", client.graph.getGraph());

    // Deletes answer with no body, as the client expects.
    await targets.deleteTarget(String(lookupTarget.id));
    await places.deletePlace(String(place.id));
    await cohorts.deleteCohort(String(cohort.id));
    expect(checked.length).toBeGreaterThan(40);
  });
});
