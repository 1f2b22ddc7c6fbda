// What kind of failure a step met, as a code that travels with it to the engine and the run's result: the service's
// error code (sdk/contract's ERROR_STATUS: `INVALID_AUTHORIZATION`, `VALIDATION_FAILED`, ...) or one of the
// lifecycle's own, so a caller can tell a refused key from a failed build without reading the message.
import { AudienceApiError, ConnectionError } from "pulumi-audience/sdk/client";
import { codeForStatus } from "pulumi-audience/sdk/contract";
import { NOTHING_MADE_CODE, OUTCOME_UNKNOWN_CODE } from "../../protocol/markers.ts";

/** The lifecycle's own failure codes. */
export const FAILURE_CODES = {
  /** The resource was made, but its build ended in error. */
  buildFailed: "BUILD_FAILED",
  /** The resource was made, but was still building when the wait's time was up. */
  buildTimeout: "BUILD_TIMEOUT",
  /** The wait for a build was stopped (the run was cancelled). */
  cancelled: "CANCELLED",
  /** A write that may have taken effect though it failed. */
  outcomeUnknown: OUTCOME_UNKNOWN_CODE,
  /** A look for what an interrupted create made found nothing. */
  nothingMade: NOTHING_MADE_CODE,
  /** The service could not be reached. */
  unreachable: "UNREACHABLE",
  /** The provider's configuration (a key, a URL) is missing or malformed. */
  config: "CONFIG_INVALID",
} as const;

/** An error with its failure code. */
export function withCode<E extends Error>(error: E, code: string): E & { code: string } {
  return Object.assign(error, { code });
}

/** The code of a failure: its own, else its cause's; a service answer that named none, by its status. */
export function failureCode(error: unknown): string | undefined {
  for (let e = error; e instanceof Error; e = e.cause) {
    if (e instanceof AudienceApiError) return e.code ?? codeForStatus(e.status);
    if (e instanceof ConnectionError) return FAILURE_CODES.unreachable;
    const own = (e as { code?: unknown }).code;
    if (typeof own === "string") return own;
  }
  return undefined;
}
