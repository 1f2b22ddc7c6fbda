// Pulumi's special values as they reach a provider, the input a dynamic resource carries its provider in, and the
// failure code a provider hands the engine that called it. The runtime and the plugin write them; the engine reads them.

/** Key and value that mark an object as one of Pulumi's special values. */
export const SIG_KEY = "4dabf18193072939515e22adb298388d";
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
/** What a value not known until the resource exists looks like during preview. */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
/** What Pulumi's dynamic provider puts before a dynamic resource's package and class name. */
export const DYNAMIC_TYPE_ROOT = "pulumi-nodejs:dynamic/";
/** The serialized dynamic provider a dynamic resource carries among its inputs and outputs. */
export const PROVIDER_KEY = "__provider";

/** The gRPC metadata key a provider puts a failure's code in (ProviderError.code), for the engine that called it. */
export const FAILURE_CODE_KEY = "failure-code";
/** The code of a failed write that may have taken effect: the engine keeps it pending for the next run to resolve. */
export const OUTCOME_UNKNOWN_CODE = "OUTCOME_UNKNOWN";
/** The code of a look for what an interrupted create made that found nothing: it made nothing. */
export const NOTHING_MADE_CODE = "NOTHING_MADE";
