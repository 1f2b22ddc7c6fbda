// `pulumi-audience`: the resources and lookups a Pulumi program declares. Each resource is a
// `pulumi.dynamic.Resource` (type token `pulumi-nodejs:dynamic/audience:<Name>`) made by one factory from its
// family; args and outputs are typed from the service contract, in camelCase.
import "pulumi-audience/lazy-typescript"; // first: before @pulumi/pulumi loads
import { resourceClass, type AudienceResource } from "./runtime/resources/resource.ts";
import { lookups } from "./runtime/resources/lookup.ts";

export type { Args, Config, DeepInput, Outputs, ResourceControls, Result, State } from "./runtime/resources/types.ts";
export type { PersonaSetExtraArgs, PersonaSetExtraOutputs, UploadExtraArgs, UploadExtraOutputs } from "./runtime/resources/types.ts";
export type * from "./runtime/resources/program-types.ts";
export type { LookupArgs, LookupInputs } from "./runtime/resources/lookup.ts";
export { resourceClass, type AudienceResource, type ResourceClass } from "./runtime/resources/resource.ts";
export { lookup, lookups } from "./runtime/resources/lookup.ts";

/** A pipeline: a population of cohorts joined to a payload of predictions (outcomes, personas, recommenders, forecasts, locations). Builds in the background; `preview: false` enables it. */
export const Scope = resourceClass("scopes");
export type Scope = AudienceResource<"scopes">;

/** A delivery of a scope's output: a hosted CSV, a lookup API, or a table or bucket reached through a connection. `outputUrl` is the hosted file or lookup endpoint. Changing `options.type` replaces it. */
export const Target = resourceClass("targets");
export type Target = AudienceResource<"targets">;

/** A group of people defined by events (stream conditions), traits, attributes, recency or locations. */
export const Cohort = resourceClass("cohorts");
export type Cohort = AudienceResource<"cohorts">;

/** A collection of geographic locations imported from a connection or an upload. Changing `options.type` replaces it. */
export const Atlas = resourceClass("atlases");
export type Atlas = AudienceResource<"atlases">;

/** An event stream: its properties are declared here and filled by datasets. */
export const Stream = resourceClass("streams");
export type Stream = AudienceResource<"streams">;

/** A user-defined trait, filled by datasets' `outputToTraits`. */
export const Trait = resourceClass("traits");
export type Trait = AudienceResource<"traits">;

/** An attribute: several event-stream assertions wrapped into one trait-like value. */
export const Attribute = resourceClass("attributes");
export type Attribute = AudienceResource<"attributes">;

/** A collection of attributes. */
export const FeatureStore = resourceClass("feature_stores");
export type FeatureStore = AudienceResource<"feature_stores">;

/** A persona objective: clusters a cohort into personas. Name personas with `personaNames` (persona id -> name) once it has built. */
export const PersonaSet = resourceClass("persona_sets");
export type PersonaSet = AudienceResource<"persona_sets">;

/** A propensity objective: who will attain the attainment cohort. */
export const Outcome = resourceClass("outcomes");
export type Outcome = AudienceResource<"outcomes">;

/** A recommendation model over a stream property. */
export const Recommender = resourceClass("recommenders");
export type Recommender = AudienceResource<"recommenders">;

/** A source of events and traits read from a connection or an upload. Changing `options.type` replaces it. */
export const Dataset = resourceClass("datasets");
export type Dataset = AudienceResource<"datasets">;

/** Credentials and location of a warehouse, bucket or database. Passwords, tokens and keys are secret inputs and stay secret in outputs. Changing `options.type` replaces it. */
export const Connection = resourceClass("connections");
export type Connection = AudienceResource<"connections">;

/** A URL that receives signed event deliveries; `secret` (the signing key) is a secret output. */
export const WebhookEndpoint = resourceClass("webhook_endpoints");
export type WebhookEndpoint = AudienceResource<"webhook_endpoints">;

/** A market opportunity analysis over atlas locations. */
export const MarketOpportunityAnalysis = resourceClass("market_opportunity_analyses");
export type MarketOpportunityAnalysis = AudienceResource<"market_opportunity_analyses">;

/** A migration between two related accounts. Changing its type or accounts replaces it. */
export const Migration = resourceClass("migrations");
export type Migration = AudienceResource<"migrations">;

/** A knowledgebase use case. */
export const UseCase = resourceClass("use_cases");
export type UseCase = AudienceResource<"use_cases">;

/** A configuration audit of the current account against its use cases (never deleted by the service: destroy forgets it). */
export const ConfigurationAudit = resourceClass("audits");
export type ConfigurationAudit = AudienceResource<"audits">;

/** A sub-account. Its `apiKey` output is secret. Destroy requests deletion, which the service carries out after its waiting period. */
export const Account = resourceClass("accounts");
export type Account = AudienceResource<"accounts">;

/** The account's Insights plan (one per account; destroy forgets it). */
export const Insights = resourceClass("insights");
export type Insights = AudienceResource<"insights">;

/** A file (CSV, optionally gzip- or bzip2-compressed) in an upload directory that datasets and atlases read. */
export const Upload = resourceClass("uploads");
export type Upload = AudienceResource<"uploads">;

// Lookups: `get<Name>({ name } | { id }, account?)` resolves to the one matching resource (camelCase), and
// `get<Name>Output` takes inputs and answers an Output. None or several matches fail, listing the names seen.
export const { get: getCohort, getOutput: getCohortOutput } = lookups("cohorts");
export const { get: getForecast, getOutput: getForecastOutput } = lookups("forecasts");
export const { get: getOutcome, getOutput: getOutcomeOutput } = lookups("outcomes");
export const { get: getConnection, getOutput: getConnectionOutput } = lookups("connections");
export const { get: getAccount, getOutput: getAccountOutput } = lookups("accounts");
export const { get: getTrait, getOutput: getTraitOutput } = lookups("traits");
export const { get: getStream, getOutput: getStreamOutput } = lookups("streams");
export const { get: getScope, getOutput: getScopeOutput } = lookups("scopes");
export const { get: getTarget, getOutput: getTargetOutput } = lookups("targets");
export const { get: getAtlas, getOutput: getAtlasOutput } = lookups("atlases");
export const { get: getAttribute, getOutput: getAttributeOutput } = lookups("attributes");
export const { get: getFeatureStore, getOutput: getFeatureStoreOutput } = lookups("feature_stores");
export const { get: getPersonaSet, getOutput: getPersonaSetOutput } = lookups("persona_sets");
export const { get: getRecommender, getOutput: getRecommenderOutput } = lookups("recommenders");
export const { get: getDataset, getOutput: getDatasetOutput } = lookups("datasets");
export const { get: getWebhookEndpoint, getOutput: getWebhookEndpointOutput } = lookups("webhook_endpoints");
export const { get: getUseCase, getOutput: getUseCaseOutput } = lookups("use_cases");
