// Pulumi's special values as they reach a provider, and the input a dynamic resource carries its provider in.
// The runtime reads them; the engine, which writes them, imports them from here.

/** Key and value that mark an object as one of Pulumi's special values. */
export const SIG_KEY = "4dabf18193072939515e22adb298388d";
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
/** What a value not known until the resource exists looks like during preview. */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
/** The Pulumi package this provider is: `audience:index:Scope` natively, `pulumi-nodejs:dynamic/audience:Scope` dynamically. */
export const PACKAGE = "audience";
/** The type token of this package's dynamic resources, before the class name. */
export const DYNAMIC_TYPE_PREFIX = `pulumi-nodejs:dynamic/${PACKAGE}:`;
/** The serialized dynamic provider a dynamic resource carries among its inputs and outputs. */
export const PROVIDER_KEY = "__provider";

/** The gRPC metadata key a provider puts a failure's code in (ProviderError.code), for the engine that called it. */
export const FAILURE_CODE_KEY = "failure-code";
/** The code of a failed write that may have taken effect: the engine keeps it pending for the next run to resolve. */
export const OUTCOME_UNKNOWN_CODE = "OUTCOME_UNKNOWN";
