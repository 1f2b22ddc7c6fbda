// Typed errors of the client: one class per service error code and status, plus transport failures.
import { createRequire } from "node:module";
import { codeForStatus, isObject, type ErrorCode, type FieldError, type ServiceErrorBody } from "../contract/index.ts";

// Required, not imported: an ESM import of node:http fills in all its exports, and its lazy WebSocket ones load
// Node's own copy of undici (tens of ms at every start).
const { STATUS_CODES } = createRequire(import.meta.url)("node:http") as typeof import("node:http");

/** Where a failed call went: enough to say which request failed, never its credentials. */
export interface RequestInfo {
  method: string;
  /** Path relative to the base URL, without the query string: `/scopes/<id>`. */
  path: string;
  /** How many times the request was sent before giving up. */
  attempts: number;
}

/** Root of every error the client throws. */
export class AudienceError extends Error {
  readonly method: string;
  readonly path: string;
  readonly attempts: number;
  /**
   * True when a request that is not safe to send twice (a create) failed in a way that leaves its effect unknown:
   * the connection broke or timed out after it was sent, or the service answered 5xx. The client does not send it
   * again; the caller looks for what it may have made first.
   */
  outcomeUnknown = false;

  constructor(info: RequestInfo, message: string, options?: ErrorOptions) {
    super(`${info.method} ${info.path}: ${message}`, options);
    this.name = new.target.name;
    this.method = info.method;
    this.path = info.path;
    this.attempts = info.attempts;
  }
}

/** One entry of the service's `validationErrors`. */
export interface ApiFieldError extends FieldError {
  suggestion?: string;
}

/** The service's error body (`ServiceErrorBody` of the contract), as far as it could be read. */
export interface ErrorBody {
  code?: string;
  note?: string;
  errorId?: string;
  validationErrors?: ApiFieldError[];
}

/** The service answered with a 4xx or 5xx status. */
export class AudienceApiError extends AudienceError {
  readonly status: number;
  /** The service's error code, e.g. `VALIDATION_FAILED`; undefined when the body carried none. */
  readonly code: string | undefined;
  /** The service's human-readable explanation. */
  readonly note: string | undefined;
  /** Id of this error occurrence, to quote to the service's support. */
  readonly errorId: string | undefined;
  readonly validationErrors: ApiFieldError[] | undefined;

  constructor(info: RequestInfo, status: number, body: ErrorBody) {
    const details = body.validationErrors?.length
      ? body.validationErrors.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join("; ")
      : body.note;
    const head = `${status} ${body.code ?? STATUS_CODES[status] ?? "error"}`;
    super(info, details ? `${head}: ${details}` : head);
    this.status = status;
    this.code = body.code;
    this.note = body.note;
    this.errorId = body.errorId;
    this.validationErrors = body.validationErrors;
  }
}

/** 400 other than a validation failure. */
export class BadRequestError extends AudienceApiError {}
/** 400 `VALIDATION_FAILED`: `validationErrors` names each offending member by its wire path. */
export class ValidationFailedError extends AudienceApiError {
  declare readonly validationErrors: ApiFieldError[];

  constructor(info: RequestInfo, status: number, body: ErrorBody) {
    super(info, status, { ...body, validationErrors: body.validationErrors ?? [] });
  }
}
/** The API key was refused (401 and the key codes). */
export class AuthenticationError extends AudienceApiError {}
export class InvalidAuthorizationError extends AuthenticationError {}
export class MissingApiKeyError extends AuthenticationError {}
export class MalformedApiKeyError extends AuthenticationError {}
export class ExpiredApiKeyError extends AuthenticationError {}
/** 403 `FORBIDDEN`: the key's account has no access to the resource. */
export class ForbiddenError extends AudienceApiError {}
/** 403 `MAX_RESOURCES_REACHED`: the account's resource quota is used up. */
export class QuotaReachedError extends AudienceApiError {}
export class NotFoundError extends AudienceApiError {}
export class ConflictError extends AudienceApiError {}
/** 429, including `QUOTA_EXCEEDED` (daily Insights allowance). */
export class RateLimitedError extends AudienceApiError {
  /** What the service's `Retry-After` asked for, in milliseconds; undefined when it did not say. */
  readonly retryAfterMs: number | undefined;

  constructor(info: RequestInfo, status: number, body: ErrorBody, retryAfterMs?: number) {
    super(info, status, body);
    this.retryAfterMs = retryAfterMs;
  }
}
/** 5xx. */
export class ServerError extends AudienceApiError {}
/**
 * 503: the service, or a proxy before it, was unavailable. The client resends every request but a create; a create's
 * `outcomeUnknown` is set, because a proxy may answer 503 after the service acted, so its caller looks first.
 */
export class ServiceUnavailableError extends ServerError {}

/** The request got no answer: connection refused, reset, DNS failure... */
export class ConnectionError extends AudienceError {
  /** True when the failure happened before the request was written, so the service never saw it. */
  readonly beforeSend: boolean;

  constructor(info: RequestInfo, message: string, beforeSend: boolean, options?: ErrorOptions) {
    super(info, message, options);
    this.beforeSend = beforeSend;
  }
}

/** No complete answer within the per-request timeout. */
export class TimeoutError extends ConnectionError {
  constructor(info: RequestInfo, timeoutMs: number, options?: ErrorOptions) {
    super(info, `no answer within ${timeoutMs} ms`, false, options);
  }
}

/** The class of each code of the contract (a code added there must be given one here). */
const byCode: Record<ErrorCode, typeof AudienceApiError> = {
  VALIDATION_FAILED: ValidationFailedError,
  BAD_REQUEST: BadRequestError,
  INVALID_AUTHORIZATION: InvalidAuthorizationError,
  MISSING_API_KEY: MissingApiKeyError,
  MALFORMED_API_KEY: MalformedApiKeyError,
  EXPIRED_API_KEY: ExpiredApiKeyError,
  FORBIDDEN: ForbiddenError,
  MAX_RESOURCES_REACHED: QuotaReachedError,
  NOT_FOUND: NotFoundError,
  CONFLICT: ConflictError,
  QUOTA_EXCEEDED: RateLimitedError,
  INTERNAL_SERVER_ERROR: ServerError,
};

/** The error class for an answer: the service's code decides, then the status. */
export function apiError(info: RequestInfo, status: number, body: ErrorBody, retryAfterMs?: number): AudienceApiError {
  if (status === 429) return new RateLimitedError(info, status, body, retryAfterMs);
  if (status === 503) return new ServiceUnavailableError(info, status, body);
  if (status >= 500) return new ServerError(info, status, body);
  if (body.validationErrors?.length) return new ValidationFailedError(info, status, body);
  const code = body.code !== undefined && Object.hasOwn(byCode, body.code) ? body.code as ErrorCode : codeForStatus(status);
  const Class = code !== undefined ? byCode[code] : AudienceApiError;
  return new Class(info, status, body);
}

const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/** Reads the service's error body leniently: a proxy's HTML page or a partial body still yields an error. */
export function readErrorBody(parsed: unknown, raw: string): ErrorBody {
  if (!isObject(parsed)) {
    const note = raw.trim().slice(0, 200);
    return note ? { note } : {};
  }
  // The contract's members first; the other spellings come from proxies and older deployments.
  const wire: Partial<Record<keyof ServiceErrorBody, unknown>> = parsed;
  const list = wire.validationErrors ?? parsed.validation_errors;
  const validationErrors = Array.isArray(list)
    ? list.filter((e) => isObject(e)).map((e): ApiFieldError => ({
      path: text(e.path) ?? "",
      message: text(e.message) ?? "is invalid",
      context: { errorType: isObject(e.context) ? text(e.context.errorType) ?? "" : "" },
      ...(text(e.suggestion) !== undefined ? { suggestion: text(e.suggestion) } : {}),
    }))
    : undefined;
  return {
    code: text(wire.error) ?? text(parsed.code),
    note: text(wire.note) ?? text(parsed.message),
    errorId: text(wire.id),
    validationErrors,
  };
}
