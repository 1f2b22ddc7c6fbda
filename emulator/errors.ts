// The errors the emulator answers with, in the contract's vocabulary (codes, statuses, body).
import { randomUUID } from "node:crypto";
import { ERROR_STATUS, type ErrorCode, type FieldError, type ServiceErrorBody } from "pulumi-audience/sdk/contract";

/** An error the service answers with; thrown anywhere in a handler and rendered by the app's error handler. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly validationErrors: FieldError[] | undefined;
  readonly headers: Record<string, string>;

  /** `status` defaults to the code's; an injected fault may pair a code with another status. */
  constructor(code: ErrorCode, note: string, options: { status?: number; validationErrors?: FieldError[]; headers?: Record<string, string> } = {}) {
    super(note);
    this.status = options.status ?? ERROR_STATUS[code];
    this.code = code;
    this.validationErrors = options.validationErrors;
    this.headers = options.headers ?? {};
  }

  body(): ServiceErrorBody {
    return {
      error: this.code,
      id: randomUUID(),
      note: this.message,
      ...(this.validationErrors ? { validationErrors: this.validationErrors } : {}),
    };
  }
}

export const badRequest = (note: string) => new ApiError("BAD_REQUEST", note);
export const notFound = (note: string) => new ApiError("NOT_FOUND", note);
export const forbidden = (note: string) => new ApiError("FORBIDDEN", note);
export const conflict = (note: string) => new ApiError("CONFLICT", note);

export function validationFailed(errors: FieldError[], note?: string): ApiError {
  return new ApiError("VALIDATION_FAILED", note ?? `The request body is invalid: ${summary(errors)}`, { validationErrors: errors });
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
