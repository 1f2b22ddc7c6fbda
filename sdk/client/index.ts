// The HTTP client of the audience prediction service.
export * from "./client.ts";
export * from "./errors.ts";
export { DEFAULT_RETRY, RETRYABLE_STATUSES, backoffMs, parseRetryAfter, type RetryOptions, type RetryPolicy } from "./retry.ts";
// Computing and applying PATCH bodies belongs with the client's users; the contract holds the one implementation.
export { mergePatch, applyMergePatch, jsonEqual, type Json } from "../contract/merge-patch.ts";
