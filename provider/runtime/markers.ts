// This package's names on the wire: the engine never reads them (it is told through its extension).
import { DYNAMIC_TYPE_ROOT } from "../protocol/markers.ts";

/** The Pulumi package this provider is: `audience:index:Scope` natively, `pulumi-nodejs:dynamic/audience:Scope` dynamically. */
export const PACKAGE = "audience";
/** The type token of this package's dynamic resources, before the class name. */
export const DYNAMIC_TYPE_PREFIX = `${DYNAMIC_TYPE_ROOT}${PACKAGE}:`;
/** Names the family (collection) of a dynamic resource's inputs: the dynamic provider host does not pass the type token. */
export const KIND_KEY = "__kind";

/** A family's resource type token under the plugin (`audience:index:Cohort`). */
export function resourceToken(className: string): string {
  return `${PACKAGE}:index:${className}`;
}

/** A family's lookup function token under the plugin (`audience:index:getCohort`). */
export function functionToken(className: string): string {
  return `${PACKAGE}:index:get${className}`;
}

/** A family's type token under the dynamic provider (`pulumi-nodejs:dynamic/audience:Cohort`): the native class's alias. */
export function dynamicType(className: string): string {
  return `${DYNAMIC_TYPE_PREFIX}${className}`;
}

/**
 * Where the program's credentials came from, by camelCase member path: `"secret"` (a secret Output) or `"plain"`
 * (anything else: a string in the program, non-secret config, another resource's plain output). The classes mark
 * every credential secret before it leaves the program, so this plain input is the only place a policy pack can
 * still tell a literal password from a secret one. Recorded, never sent, never diffed. Not `__`-named: Pulumi hides
 * such inputs from analyzers.
 */
export const CREDENTIAL_SOURCES_KEY = "credentialSources";

/** How a credential reached the class: see CREDENTIAL_SOURCES_KEY. */
export type CredentialSource = "secret" | "plain";

/**
 * The dynamic face's `replaceOnChanges` option, as the class records it (Pulumi property paths). Pulumi's
 * dynamic-provider host answers Diff without the changed paths, so the engine has nothing to match the option
 * against: the lifecycle's diff applies it instead. `__`-named: bookkeeping no plan, analyzer or drift report shows;
 * never sent, never recorded among the outputs.
 */
export const REPLACE_ON_CHANGES_KEY = "__replaceOnChanges";
