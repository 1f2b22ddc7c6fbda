// The registry of the contract's families: each family module registered by one entry, keyed by collection name.
// Everything generic (client, emulator, provider, program types, both faces, the plugin schema) iterates it.
import { account } from "./account.ts";
import { atlas, location } from "./atlas.ts";
import { attribute, featureStore } from "./attribute.ts";
import { audit } from "./audit.ts";
import type { FamilyDef } from "./family.ts";
import { cohort } from "./cohort.ts";
import { connection } from "./connection.ts";
import { dataset } from "./dataset.ts";
import { forecast } from "./forecast.ts";
import { insights } from "./insights.ts";
import { marketOpportunityAnalysis } from "./market-opportunity-analysis.ts";
import { migration } from "./migration.ts";
import { outcome } from "./outcome.ts";
import { personaSet } from "./persona-set.ts";
import { place } from "./place.ts";
import { recommender } from "./recommender.ts";
import { scope } from "./scope.ts";
import { stream } from "./stream.ts";
import { target } from "./target.ts";
import { trait } from "./trait.ts";
import { upload } from "./upload.ts";
import { useCase } from "./use-case.ts";
import { webhookEndpoint } from "./webhook-endpoint.ts";

/** Every resource family of the service, keyed by collection name (the `resource_type`). */
export const families = {
  scopes: scope,
  targets: target,
  cohorts: cohort,
  forecasts: forecast,
  atlases: atlas,
  locations: location,
  streams: stream,
  traits: trait,
  attributes: attribute,
  feature_stores: featureStore,
  persona_sets: personaSet,
  outcomes: outcome,
  recommenders: recommender,
  datasets: dataset,
  connections: connection,
  accounts: account,
  webhook_endpoints: webhookEndpoint,
  migrations: migration,
  audits: audit,
  use_cases: useCase,
  insights,
  market_opportunity_analyses: marketOpportunityAnalysis,
  uploads: upload,
  places: place,
} as const satisfies Record<string, FamilyDef>;

export type Collection = keyof typeof families;

