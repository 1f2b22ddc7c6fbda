// `pulumi-audience/native`: the resources and lookups of the `audience` provider plugin, for TypeScript programs.
// Each class is the twin of the dynamic class of the same name (`pulumi-audience`): the same args and outputs,
// typed from the contract, but a `CustomResource` of the `audience:index:<Name>` token served by the plugin, so
// `pulumi import`, customTimeouts, cancellation and explicit providers work. Switching a program's import from
// `pulumi-audience` to `pulumi-audience/native` moves its stack over without replacing anything (an alias from
// the dynamic type). Lookups are the provider's `audience:index:get<Name>` functions.
import "pulumi-audience/lazy-typescript"; // first: before @pulumi/pulumi loads
import { nativeClass, nativeLookups, type NativeResource } from "./resource.ts";

export type { Args, DeepInput, Outputs, ResourceControls, State } from "../runtime/resources/types.ts";
export type { LookupArgs, LookupInputs } from "../runtime/resources/lookup.ts";
export { nativeClass, nativeLookups, Provider, type NativeResource, type NativeResourceClass, type ProviderArgs } from "./resource.ts";

export const Scope = nativeClass("scopes");
export type Scope = NativeResource<"scopes">;

export const Target = nativeClass("targets");
export type Target = NativeResource<"targets">;

export const Cohort = nativeClass("cohorts");
export type Cohort = NativeResource<"cohorts">;

export const Atlas = nativeClass("atlases");
export type Atlas = NativeResource<"atlases">;

export const Stream = nativeClass("streams");
export type Stream = NativeResource<"streams">;

export const Trait = nativeClass("traits");
export type Trait = NativeResource<"traits">;

export const Attribute = nativeClass("attributes");
export type Attribute = NativeResource<"attributes">;

export const FeatureStore = nativeClass("feature_stores");
export type FeatureStore = NativeResource<"feature_stores">;

export const PersonaSet = nativeClass("persona_sets");
export type PersonaSet = NativeResource<"persona_sets">;

export const Outcome = nativeClass("outcomes");
export type Outcome = NativeResource<"outcomes">;

export const Recommender = nativeClass("recommenders");
export type Recommender = NativeResource<"recommenders">;

export const Dataset = nativeClass("datasets");
export type Dataset = NativeResource<"datasets">;

export const Connection = nativeClass("connections");
export type Connection = NativeResource<"connections">;

export const WebhookEndpoint = nativeClass("webhook_endpoints");
export type WebhookEndpoint = NativeResource<"webhook_endpoints">;

export const MarketOpportunityAnalysis = nativeClass("market_opportunity_analyses");
export type MarketOpportunityAnalysis = NativeResource<"market_opportunity_analyses">;

export const Migration = nativeClass("migrations");
export type Migration = NativeResource<"migrations">;

export const UseCase = nativeClass("use_cases");
export type UseCase = NativeResource<"use_cases">;

export const ConfigurationAudit = nativeClass("audits");
export type ConfigurationAudit = NativeResource<"audits">;

export const Account = nativeClass("accounts");
export type Account = NativeResource<"accounts">;

export const Insights = nativeClass("insights");
export type Insights = NativeResource<"insights">;

export const Upload = nativeClass("uploads");
export type Upload = NativeResource<"uploads">;

export const { get: getCohort, getOutput: getCohortOutput } = nativeLookups("cohorts");
export const { get: getForecast, getOutput: getForecastOutput } = nativeLookups("forecasts");
export const { get: getOutcome, getOutput: getOutcomeOutput } = nativeLookups("outcomes");
export const { get: getConnection, getOutput: getConnectionOutput } = nativeLookups("connections");
export const { get: getAccount, getOutput: getAccountOutput } = nativeLookups("accounts");
export const { get: getTrait, getOutput: getTraitOutput } = nativeLookups("traits");
export const { get: getStream, getOutput: getStreamOutput } = nativeLookups("streams");
export const { get: getScope, getOutput: getScopeOutput } = nativeLookups("scopes");
export const { get: getTarget, getOutput: getTargetOutput } = nativeLookups("targets");
export const { get: getAtlas, getOutput: getAtlasOutput } = nativeLookups("atlases");
export const { get: getAttribute, getOutput: getAttributeOutput } = nativeLookups("attributes");
export const { get: getFeatureStore, getOutput: getFeatureStoreOutput } = nativeLookups("feature_stores");
export const { get: getPersonaSet, getOutput: getPersonaSetOutput } = nativeLookups("persona_sets");
export const { get: getRecommender, getOutput: getRecommenderOutput } = nativeLookups("recommenders");
export const { get: getDataset, getOutput: getDatasetOutput } = nativeLookups("datasets");
export const { get: getWebhookEndpoint, getOutput: getWebhookEndpointOutput } = nativeLookups("webhook_endpoints");
export const { get: getUseCase, getOutput: getUseCaseOutput } = nativeLookups("use_cases");
