// `pulumi-audience`: the resources and lookups a Pulumi program declares. Each resource is a
// `pulumi.dynamic.Resource` (type token `pulumi-nodejs:dynamic/audience:<Name>`) made by one factory from its
// family; args and outputs are typed from the service contract, in camelCase.
import { resourceClass, type AudienceResource } from "./runtime/resources/resource.ts";
import { lookups } from "./runtime/resources/lookup.ts";
import type { Args, State } from "./runtime/resources/types.ts";

export type { Args, Config, DeepInput, Outputs, ResourceControls, State } from "./runtime/resources/types.ts";
export type { LookupArgs, LookupInputs } from "./runtime/resources/lookup.ts";
export { resourceClass, type AudienceResource, type ResourceClass } from "./runtime/resources/resource.ts";
export { lookup, lookups } from "./runtime/resources/lookup.ts";

/** A pipeline: a population of cohorts joined to a payload of predictions (outcomes, personas, recommenders, forecasts, locations). Builds in the background; `preview: false` enables it. */
export const Scope = resourceClass("scopes");
export type Scope = AudienceResource<"scopes">;
export type ScopeArgs = Args<"scopes">;

/** A delivery of a scope's output: a hosted CSV, a lookup API, or a table or bucket reached through a connection. `outputUrl` is the hosted file or lookup endpoint. Changing `options.type` replaces it. */
export const Target = resourceClass("targets");
export type Target = AudienceResource<"targets">;
export type TargetArgs = Args<"targets">;

/** A group of people defined by events (stream conditions), traits, attributes, recency or locations. */
export const Cohort = resourceClass("cohorts");
export type Cohort = AudienceResource<"cohorts">;
export type CohortArgs = Args<"cohorts">;

/** A collection of geographic locations imported from a connection or an upload. Changing `options.type` replaces it. */
export const Atlas = resourceClass("atlases");
export type Atlas = AudienceResource<"atlases">;
export type AtlasArgs = Args<"atlases">;

/** An event stream: its properties are declared here and filled by datasets. */
export const Stream = resourceClass("streams");
export type Stream = AudienceResource<"streams">;
export type StreamArgs = Args<"streams">;

/** A user-defined trait, filled by datasets' `outputToTraits`. */
export const Trait = resourceClass("traits");
export type Trait = AudienceResource<"traits">;
export type TraitArgs = Args<"traits">;

/** An attribute: several event-stream assertions wrapped into one trait-like value. */
export const Attribute = resourceClass("attributes");
export type Attribute = AudienceResource<"attributes">;
export type AttributeArgs = Args<"attributes">;

/** A collection of attributes. */
export const FeatureStore = resourceClass("feature_stores");
export type FeatureStore = AudienceResource<"feature_stores">;
export type FeatureStoreArgs = Args<"feature_stores">;

/** A persona objective: clusters a cohort into personas. Name personas with `personaNames` (persona id -> name) once it has built. */
export const PersonaSet = resourceClass("persona_sets");
export type PersonaSet = AudienceResource<"persona_sets">;
export type PersonaSetArgs = Args<"persona_sets">;

/** A propensity objective: who will attain the attainment cohort. */
export const Outcome = resourceClass("outcomes");
export type Outcome = AudienceResource<"outcomes">;
export type OutcomeArgs = Args<"outcomes">;

/** A recommendation model over a stream property. */
export const Recommender = resourceClass("recommenders");
export type Recommender = AudienceResource<"recommenders">;
export type RecommenderArgs = Args<"recommenders">;

/** A source of events and traits read from a connection or an upload. Changing `options.type` replaces it. */
export const Dataset = resourceClass("datasets");
export type Dataset = AudienceResource<"datasets">;
export type DatasetArgs = Args<"datasets">;

/** Credentials and location of a warehouse, bucket or database. Passwords, tokens and keys are secret inputs and stay secret in outputs. Changing `options.type` replaces it. */
export const Connection = resourceClass("connections");
export type Connection = AudienceResource<"connections">;
export type ConnectionArgs = Args<"connections">;

/** A URL that receives signed event deliveries; `secret` (the signing key) is a secret output. */
export const WebhookEndpoint = resourceClass("webhook_endpoints");
export type WebhookEndpoint = AudienceResource<"webhook_endpoints">;
export type WebhookEndpointArgs = Args<"webhook_endpoints">;

/** A market opportunity analysis over atlas locations. */
export const MarketOpportunityAnalysis = resourceClass("market_opportunity_analyses");
export type MarketOpportunityAnalysis = AudienceResource<"market_opportunity_analyses">;
export type MarketOpportunityAnalysisArgs = Args<"market_opportunity_analyses">;

/** A migration between two related accounts. Changing its type or accounts replaces it. */
export const Migration = resourceClass("migrations");
export type Migration = AudienceResource<"migrations">;
export type MigrationArgs = Args<"migrations">;

/** A knowledgebase use case. */
export const UseCase = resourceClass("use_cases");
export type UseCase = AudienceResource<"use_cases">;
export type UseCaseArgs = Args<"use_cases">;

/** A configuration audit of the current account against its use cases (never deleted by the service: destroy forgets it). */
export const ConfigurationAudit = resourceClass("audits");
export type ConfigurationAudit = AudienceResource<"audits">;
export type ConfigurationAuditArgs = Args<"audits">;

/** A sub-account. Its `apiKey` output is secret. Destroy requests deletion, which the service carries out after its waiting period. */
export const Account = resourceClass("accounts");
export type Account = AudienceResource<"accounts">;
export type AccountArgs = Args<"accounts">;

/** The account's Insights plan (one per account; destroy forgets it). */
export const Insights = resourceClass("insights");
export type Insights = AudienceResource<"insights">;
export type InsightsArgs = Args<"insights">;

/** A file (CSV, optionally gzip- or bzip2-compressed) in an upload directory that datasets and atlases read. */
export const Upload = resourceClass("uploads");
export type Upload = AudienceResource<"uploads">;
export type UploadArgs = Args<"uploads">;

// Lookups: `get<Name>({ name } | { id }, account?)` resolves to the one matching resource (camelCase), and
// `get<Name>Output` takes inputs and answers an Output. None or several matches fail, listing the names seen.
export type CohortResult = State<"cohorts">;
export const { get: getCohort, getOutput: getCohortOutput } = lookups("cohorts");
export type ForecastResult = State<"forecasts">;
export const { get: getForecast, getOutput: getForecastOutput } = lookups("forecasts");
export type OutcomeResult = State<"outcomes">;
export const { get: getOutcome, getOutput: getOutcomeOutput } = lookups("outcomes");
export type ConnectionResult = State<"connections">;
export const { get: getConnection, getOutput: getConnectionOutput } = lookups("connections");
export type AccountResult = State<"accounts">;
export const { get: getAccount, getOutput: getAccountOutput } = lookups("accounts");
export type TraitResult = State<"traits">;
export const { get: getTrait, getOutput: getTraitOutput } = lookups("traits");
export type StreamResult = State<"streams">;
export const { get: getStream, getOutput: getStreamOutput } = lookups("streams");
export type ScopeResult = State<"scopes">;
export const { get: getScope, getOutput: getScopeOutput } = lookups("scopes");
export type TargetResult = State<"targets">;
export const { get: getTarget, getOutput: getTargetOutput } = lookups("targets");
export type AtlasResult = State<"atlases">;
export const { get: getAtlas, getOutput: getAtlasOutput } = lookups("atlases");
export type AttributeResult = State<"attributes">;
export const { get: getAttribute, getOutput: getAttributeOutput } = lookups("attributes");
export type FeatureStoreResult = State<"feature_stores">;
export const { get: getFeatureStore, getOutput: getFeatureStoreOutput } = lookups("feature_stores");
export type PersonaSetResult = State<"persona_sets">;
export const { get: getPersonaSet, getOutput: getPersonaSetOutput } = lookups("persona_sets");
export type RecommenderResult = State<"recommenders">;
export const { get: getRecommender, getOutput: getRecommenderOutput } = lookups("recommenders");
export type DatasetResult = State<"datasets">;
export const { get: getDataset, getOutput: getDatasetOutput } = lookups("datasets");
export type WebhookEndpointResult = State<"webhook_endpoints">;
export const { get: getWebhookEndpoint, getOutput: getWebhookEndpointOutput } = lookups("webhook_endpoints");
export type UseCaseResult = State<"use_cases">;
export const { get: getUseCase, getOutput: getUseCaseOutput } = lookups("use_cases");
