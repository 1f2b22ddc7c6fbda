// `pulumi-audience`: the resources and lookups a Pulumi program declares.
import { resourceClass, type AudienceResource } from "./resources/resource.ts";
import { lookups } from "./resources/lookup.ts";
import type { Args } from "./resources/types.ts";

export type { Args, DeepInput, Outputs, ResourceControls, State } from "./resources/types.ts";
export type { LookupArgs, LookupInputs } from "./resources/lookup.ts";
export { resourceClass, type AudienceResource, type ResourceClass } from "./resources/resource.ts";
export { lookup, lookups } from "./resources/lookup.ts";

/** A pipeline: a population of cohorts joined to a payload of predictions. `preview: false` enables it. */
export const Scope = resourceClass("scopes");
export type Scope = AudienceResource<"scopes">;
export type ScopeArgs = Args<"scopes">;
export const { get: getScope, getOutput: getScopeOutput } = lookups("scopes");
