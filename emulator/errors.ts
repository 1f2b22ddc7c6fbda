// The service's error body `{error, id, note, validationErrors}` and the codes it answers with.
import { randomUUID } from "node:crypto";
import type { FieldError } from "pulumi-audience/sdk/contract";

export const ERROR_CODES = [
  "BAD_REQUEST", "FORBIDDEN", "MAX_RESOURCES_REACHED", "INTERNAL_SERVER_ERROR", "INVALID_AUTHORIZATION", "NOT_FOUND",
  "MALFORMED_API_KEY", "MISSING_API_KEY", "EXPIRED_API_KEY", "VALIDATION_FAILED", "CONFLICT", "QUOTA_EXCEEDED",
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ErrorBody {
  error: ErrorCode;
  id: string;
  note: string;
  validationErrors?: FieldError[];
}

/** An error the service answers with; thrown anywhere in a handler and rendered by the app's error handler. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly validationErrors: FieldError[] | undefined;
  readonly headers: Record<string, string>;

  constructor(status: number, code: ErrorCode, note: string, validationErrors?: FieldError[], headers: Record<string, string> = {}) {
    super(note);
    this.status = status;
    this.code = code;
    this.validationErrors = validationErrors;
    this.headers = headers;
  }

  body(): ErrorBody {
    return {
      error: this.code,
      id: randomUUID(),
      note: this.message,
      ...(this.validationErrors ? { validationErrors: this.validationErrors } : {}),
    };
  }
}

export const badRequest = (note: string) => new ApiError(400, "BAD_REQUEST", note);
export const notFound = (note: string) => new ApiError(404, "NOT_FOUND", note);
export const forbidden = (note: string) => new ApiError(403, "FORBIDDEN", note);
export const conflict = (note: string) => new ApiError(409, "CONFLICT", note);

export function validationFailed(errors: FieldError[], note?: string): ApiError {
  return new ApiError(400, "VALIDATION_FAILED", note ?? `The request body is invalid: ${summary(errors)}`, errors);
}

/** A refused query parameter (`ids`, `limit`, ...): the note must not send the user looking in the body. */
export function queryInvalid(errors: FieldError[]): ApiError {
  return validationFailed(errors, `The query string is invalid: ${summary(errors)}`);
}

function summary(errors: FieldError[]): string {
  return errors.map((e) => `${e.path || "body"}: ${e.message}`).join("; ");
}

export function fieldError(path: string, message: string, errorType = "custom"): FieldError {
  return { path, message, context: { errorType } };
}

/** The usual code for a status, for injected faults and framework errors. */
export function codeForStatus(status: number): ErrorCode {
  if (status >= 500) return "INTERNAL_SERVER_ERROR";
  if (status === 429) return "QUOTA_EXCEEDED";
  if (status === 401) return "INVALID_AUTHORIZATION";
  if (status === 403) return "FORBIDDEN";
  if (status === 404) return "NOT_FOUND";
  if (status === 409) return "CONFLICT";
  return "BAD_REQUEST";
}
