// The service's error vocabulary: the codes it answers with, the HTTP status of each, and the error body
// `{error, id, note, validationErrors}`. The client's error classes, the emulator's errors and /openapi.json
// all read it from here.
import { z } from "zod";
import type { FieldError } from "./validation.ts";

/** Each error code and its HTTP status; the first code of a status is the usual one for it. */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  VALIDATION_FAILED: 400,
  INVALID_AUTHORIZATION: 401,
  MISSING_API_KEY: 401,
  MALFORMED_API_KEY: 401,
  EXPIRED_API_KEY: 401,
  FORBIDDEN: 403,
  MAX_RESOURCES_REACHED: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  QUOTA_EXCEEDED: 429,
  INTERNAL_SERVER_ERROR: 500,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

/** The usual code of a status (for answers that name none); any 5xx is INTERNAL_SERVER_ERROR; undefined otherwise. */
export function codeForStatus(status: number): ErrorCode | undefined {
  const usual = ERROR_CODES.find((code) => ERROR_STATUS[code] === status);
  return usual ?? (status >= 500 ? "INTERNAL_SERVER_ERROR" : undefined);
}

/** The body of every error answer, as the service writes it. */
export interface ServiceErrorBody {
  error: ErrorCode;
  /** Id of this occurrence, to quote to support. */
  id: string;
  note: string;
  validationErrors?: FieldError[];
}

/** The schema of the error body (for /openapi.json). */
export const serviceErrorBody = z.object({
  error: z.enum(ERROR_CODES),
  id: z.guid(),
  note: z.string(),
  validationErrors: z.array(z.object({
    path: z.string(),
    message: z.string(),
    context: z.object({ errorType: z.string() }),
  })).optional(),
}) satisfies z.ZodType<ServiceErrorBody>;
