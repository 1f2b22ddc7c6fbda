// The service contract: one module per resource family (its members, answers, docs and flags), each registered by
// one entry in `families` below; the bodies, their types, the program types and both program faces follow from it.
export * from "./common.ts";
export * from "./naming.ts";
export * from "./merge-patch.ts";
export * from "./errors.ts";
export * from "./paths.ts";
export * from "./location.ts";
export * from "./conditions.ts";
export * from "./scope.ts";
export * from "./target.ts";
export * from "./cohort.ts";
export * from "./forecast.ts";
export * from "./atlas.ts";
export * from "./stream.ts";
export * from "./trait.ts";
export * from "./attribute.ts";
export * from "./persona-set.ts";
export * from "./outcome.ts";
export * from "./recommender.ts";
export * from "./dataset.ts";
export * from "./connection.ts";
export * from "./account.ts";
export * from "./webhook-endpoint.ts";
export * from "./migration.ts";
export * from "./audit.ts";
export * from "./use-case.ts";
export * from "./insights.ts";
export * from "./market-opportunity-analysis.ts";
export * from "./upload.ts";
export * from "./place.ts";
export * from "./actions.ts";
export * from "./docs.ts";
export * from "./field-docs.ts";

import { account } from "./account.ts";
import { atlas, location } from "./atlas.ts";
import { attribute, featureStore } from "./attribute.ts";
import { audit } from "./audit.ts";
import { cohort } from "./cohort.ts";
import type { FamilyDef } from "./common.ts";
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

