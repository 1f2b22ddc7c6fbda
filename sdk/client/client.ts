// The HTTP client of the audience prediction service: auth, JSON, retries, typed errors, ids batching, paging.
import { createRequire } from "node:module";
import { inspect } from "node:util";
import { setTimeout as sleep } from "node:timers/promises";
import type { Agent as UndiciAgent, Dispatcher } from "undici";
import type { z } from "zod";
import { collectionPath, families, itemPath, type Collection, type FamilyDef, type UploadResponse } from "../contract/index.ts";
import {
  apiError, AudienceError, ConnectionError, NotFoundError, readErrorBody, TimeoutError, type RequestInfo,
} from "./errors.ts";
import {
  backoffMs, failedBeforeSend, errorCode, parseRetryAfter, RETRYABLE_STATUSES, retryPolicy,
  type RetryOptions, type RetryPolicy,
} from "./retry.ts";

export interface AudienceClientOptions {
  apiKey: string;
  /** The service's base URL, with or without the `/v1` prefix (it is added when missing). */
  baseUrl: string;
  /** Time one attempt may take, headers and body, in ms (default 30000). */
  timeoutMs?: number;
  retry?: RetryOptions;
  userAgent?: string;
  /** A shared undici dispatcher (e.g. one Agent for many accounts); the client then never closes it. */
  dispatcher?: Dispatcher;
  /** Keep-alive connections per origin of the client's own pool (default 8). */
  connections?: number;
  /** Told before each wait to send a failed request again, so that a long wait can be shown. */
  onRetry?: (notice: RetryNotice) => void;
}

/**
 * A request about to be sent again: why, after how long, and which retry of how many; or, `answered`, one that a
 * retry got through (`reason` then names the request), so that what was shown of its waits can be replaced.
 */
export interface RetryNotice {
  /** The failure, as the error would say it (`POST /cohorts: 503 ...`). */
  reason: string;
  waitMs: number;
  retry: number;
  maxRetries: number;
  answered?: true;
}

/**
 * What names a family in a call: its collection name (`"scopes"`), or its definition from the contract (`scope`),
 * which code that already holds the definition passes as it is.
 */
export type FamilyKey = Collection | FamilyDef;
type Family<K extends FamilyKey> = K extends Collection ? (typeof families)[K] : K;
/** Wire (snake_case) body of POST for a collection. */
export type CreateBody<K extends FamilyKey> = z.input<Family<K>["create"]>;
/** Wire merge-patch body of PATCH for a collection. */
export type PatchBody<K extends FamilyKey> = z.input<Family<K>["patch"]>;
/** A resource as the service answers it (read leniently: newer members pass through). */
export type Resource<K extends FamilyKey> = z.output<Family<K>["response"]>;

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD";
export type QueryValue = string | number | boolean | null | undefined | readonly (string | number | boolean)[];
export type Query = Record<string, QueryValue>;

export interface RequestOptions {
  method: HttpMethod;
  /** Path relative to the base URL, e.g. `/scopes/<id>/analysis`. */
  path: string;
  /** Query parameters; arrays repeat the parameter (`?ids=a&ids=b`). */
  query?: Query;
  /** JSON body; bytes (a file) are sent as they are. */
  body?: unknown;
  /** Default `application/json`. */
  contentType?: string;
  /**
   * Whether sending the request twice has the effect of sending it once; decides retries after an
   * ambiguous failure. Default: every method but POST.
   */
  idempotent?: boolean;
  /** Overrides the client's per-attempt timeout. */
  timeoutMs?: number;
}

export interface ApiResponse<T> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON; the text for other media types; undefined for an empty body. */
  body: T;
}

export interface ArchiveOptions {
  /** Ids of downstream (archive) or upstream (unarchive) resources that may be archived along. */
  cascade_to?: string[];
  /** Cascade to everything downstream (archive) or upstream (unarchive). */
  cascade_to_all?: boolean;
}

export interface ListOptions {
  /** Only these resources; more than 100 are fetched in several requests, results in the order of `ids`. */
  ids?: readonly string[];
  query?: Query;
}

export interface PaginateOptions {
  /** Page size asked of the service. */
  limit?: number;
  query?: Query;
}

// Only the undici parts the client calls, required by path (the pinned undici has no exports map): its index loads
// fetch, WebSocket, caches and mocks too, a quarter of a second at every start. `request` is called on any
// dispatcher, so one passed in need not come from undici's index.
const requireUndici = createRequire(import.meta.url);
const Agent = requireUndici("undici/lib/dispatcher/agent.js") as typeof UndiciAgent;
const dispatcherRequest = requireUndici("undici/lib/api/api-request.js") as (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;

/** The service's limit of ids per list request. */
export const MAX_IDS_PER_REQUEST = 100;

export const MERGE_PATCH = "application/merge-patch+json";

function normalizeBaseUrl(baseUrl: string): URL {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(`baseUrl must be an absolute http(s) URL, got ${JSON.stringify(baseUrl)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TypeError(`baseUrl must use http or https, got ${url.protocol}`);
  }
  if (url.search || url.hash) throw new TypeError("baseUrl must not carry a query string or fragment");
  const path = url.pathname.replace(/\/+$/, "");
  url.pathname = path.endsWith("/v1") ? path : `${path}/v1`;
  return url;
}

function parseBody(raw: string, contentType: string | string[] | undefined): unknown {
  if (raw === "") return undefined;
  const type = String(contentType ?? "").toLowerCase();
  if (type.includes("json") || (type === "" && /^\s*[[{"]/.test(raw))) {
    try {
      return JSON.parse(raw);
    } catch {
      return raw;
    }
  }
  return raw;
}

/** The `rel="next"` target of an RFC 8288 `Link` header. */
export function nextLink(header: string | string[] | undefined): string | undefined {
  for (const value of Array.isArray(header) ? header : header ? [header] : []) {
    // Each link is `<target>` followed by `; name=value` parameters whose quoted values may hold `,` or `;`.
    for (const match of value.matchAll(/<([^>]*)>((?:\s*;\s*[\w*-]+\s*(?:=\s*(?:"[^"]*"|[^;,]*))?)*)/g)) {
      const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^;,\s]+))/i.exec(match[2] ?? "");
      if ((rel?.[1] ?? rel?.[2])?.toLowerCase().split(/\s+/).includes("next")) return match[1];
    }
  }
  return undefined;
}

interface Attempt {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: Buffer;
}

export class AudienceClient {
  /** The normalized base URL, ending in `/v1`. */
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly retry: Readonly<RetryPolicy>;
  readonly #apiKey: string;
  readonly #base: URL;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;
  readonly #userAgent: string;
  readonly #onRetry: ((notice: RetryNotice) => void) | undefined;

  constructor(options: AudienceClientOptions) {
    if (typeof options.apiKey !== "string" || options.apiKey.trim() === "") {
      throw new TypeError("apiKey is required: pass the account's API key (stack config audience:apiKey or AUDIENCE_API_KEY)");
    }
    this.#apiKey = options.apiKey;
    this.#base = normalizeBaseUrl(options.baseUrl);
    this.baseUrl = this.#base.href;
    const timeoutMs = options.timeoutMs ?? 30_000;
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new RangeError(`timeoutMs must be a positive number, got ${String(timeoutMs)}`);
    this.timeoutMs = timeoutMs;
    this.retry = retryPolicy(options.retry);
    this.#userAgent = options.userAgent ?? `pulumi-audience (node ${process.version})`;
    this.#onRetry = options.onRetry;
    this.#ownsDispatcher = options.dispatcher === undefined;
    this.#dispatcher = options.dispatcher ?? new Agent({
      connections: options.connections ?? 8,
      keepAliveTimeout: 10_000,
      keepAliveMaxTimeout: 60_000,
    });
  }

  /**
   * Creates a resource: `POST /{collection}`. Retried only when the request provably never reached the service or
   * was refused (429); a failure that leaves its effect unknown is thrown with `outcomeUnknown` set.
   */
  async create<K extends FamilyKey>(family: K, body: CreateBody<K>): Promise<Resource<K>> {
    return this.request<Resource<K>>({ method: "POST", path: this.#collectionPath(family), body, idempotent: false });
  }

  async get<K extends FamilyKey>(family: K, id: string): Promise<Resource<K>> {
    return this.request<Resource<K>>({ method: "GET", path: this.#itemPath(family, id) });
  }

  /** Lists a collection; with `ids`, only those resources, in the order of `ids`, whatever their number. */
  async list<K extends FamilyKey>(family: K, options: ListOptions = {}): Promise<Resource<K>[]> {
    const path = this.#collectionPath(family);
    if (options.ids === undefined) {
      return asArray<Resource<K>>(await this.request({ method: "GET", path, query: options.query }), path);
    }
    const ids = [...new Set(options.ids)];
    const results: Resource<K>[] = [];
    for (let start = 0; start < ids.length; start += MAX_IDS_PER_REQUEST) {
      const batch = ids.slice(start, start + MAX_IDS_PER_REQUEST);
      const page = await this.request<Resource<K>[]>({ method: "GET", path, query: { ...options.query, ids: batch } });
      results.push(...asArray<Resource<K>>(page, path));
    }
    const position = new Map(ids.map((id, index) => [id, index]));
    const rank = (item: Resource<K>) => position.get((item as { id?: string }).id ?? "") ?? ids.length;
    return results.sort((a, b) => rank(a) - rank(b));
  }

  /**
   * Lists a collection whole, as `list` does, its body parsed only when the answer is called: a caller that holds
   * many lists before it reads them keeps their bytes, not their objects (which the garbage collector would copy
   * and keep).
   */
  async listLater<K extends FamilyKey>(family: K): Promise<() => Resource<K>[]> {
    const path = this.#collectionPath(family);
    const read = (await this.#send<() => unknown>({ method: "GET", accept: "later" }, this.#url(path, undefined))).body;
    return () => asArray<Resource<K>>(read(), path);
  }

  /** Applies an RFC 7396 merge patch: `PATCH /{collection}/{id}` as `application/merge-patch+json`. */
  async update<K extends FamilyKey>(family: K, id: string, patch: PatchBody<K>): Promise<Resource<K>> {
    return this.request<Resource<K>>({ method: "PATCH", path: this.#itemPath(family, id), body: patch, contentType: MERGE_PATCH });
  }

  /** Deletes a resource. A retry that finds it gone counts as success: an earlier attempt deleted it. */
  async delete(family: FamilyKey, id: string): Promise<void> {
    await this.#deleteAt(this.#itemPath(family, id));
  }

  async #deleteAt(path: string): Promise<void> {
    try {
      await this.request({ method: "DELETE", path });
    } catch (error) {
      if (error instanceof NotFoundError && error.attempts > 1) return;
      throw error;
    }
  }

  async archive(family: FamilyKey, id: string, options?: ArchiveOptions): Promise<void> {
    await this.#action(family, id, "archive", options);
  }

  async unarchive(family: FamilyKey, id: string, options?: ArchiveOptions): Promise<void> {
    await this.#action(family, id, "unarchive", options);
  }

  /** Forces a re-run of the resource's build. */
  async forceUpdate(family: FamilyKey, id: string): Promise<void> {
    await this.#action(family, id, "force_update");
  }

  /** Looks people up through a lookup API target (`POST /targets/{id}/lookup`, a read: retried). */
  async lookup(targetId: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
    return this.request({ method: "POST", path: `${this.#itemPath("targets", targetId)}/lookup`, body, idempotent: true });
  }

  /**
   * Sends a file's bytes to `/uploads/{directory}/{filename}` (the service answers no body). Sending the same bytes
   * again leaves the same file, so a failed upload is retried like a read.
   */
  async upload(directory: string, filename: string, bytes: Uint8Array, contentType = uploadType(filename)): Promise<void> {
    await this.request({ method: "POST", path: this.#uploadPath(directory, filename), body: bytes, contentType, idempotent: true });
  }

  /** Deletes an uploaded file. A retry that finds it gone counts as success, as for resources. */
  async deleteUpload(directory: string, filename: string): Promise<void> {
    await this.#deleteAt(this.#uploadPath(directory, filename));
  }

  /** Every uploaded file of the account (`GET /uploads`). */
  async listUploads(): Promise<UploadResponse[]> {
    const path = this.#collectionPath("uploads");
    return asArray<UploadResponse>(await this.request({ method: "GET", path }), path);
  }

  /** The bytes of an uploaded file. */
  async download(directory: string, filename: string): Promise<Uint8Array> {
    const url = this.#url(this.#uploadPath(directory, filename), undefined);
    return (await this.#send<Uint8Array>({ method: "GET", accept: "bytes" }, url)).body;
  }

  /** Iterates over every item of a paged listing (`/locations`, ...), following the `Link` rel="next" header. */
  async *paginate<T = Record<string, unknown>>(path: string, options: PaginateOptions = {}): AsyncGenerator<T, void, undefined> {
    let url: URL | undefined = this.#url(path, { ...options.query, limit: options.limit });
    while (url !== undefined) {
      const response: ApiResponse<T[]> = await this.#send<T[]>({ method: "GET" }, url);
      yield* asArray<T>(response.body, url.pathname);
      const next = nextLink(response.headers.link);
      if (next === undefined) return;
      const nextUrl: URL = new URL(next, url);
      if (nextUrl.origin !== this.#base.origin) {
        // The API key must never travel to another host.
        throw new AudienceError(this.#info("GET", url, 1), `refusing to follow a next link to another origin (${nextUrl.origin})`);
      }
      url = nextUrl;
    }
  }

  /** Any call to the service; answers the parsed body. */
  async request<T = unknown>(options: RequestOptions): Promise<T> {
    return (await this.requestWithResponse<T>(options)).body;
  }

  /** Any call to the service; answers status, headers and parsed body. */
  async requestWithResponse<T = unknown>(options: RequestOptions): Promise<ApiResponse<T>> {
    return this.#send<T>(options, this.#url(options.path, options.query));
  }

  /** Closes the client's connection pool (a shared dispatcher passed in stays open). */
  async close(): Promise<void> {
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }

  toJSON(): Record<string, unknown> {
    return { baseUrl: this.baseUrl, timeoutMs: this.timeoutMs, retry: this.retry };
  }

  [inspect.custom](): string {
    return `AudienceClient ${inspect(this.toJSON())}`;
  }

  #family(key: FamilyKey): FamilyDef {
    if (typeof key === "object" && key !== null && typeof key.collection === "string" && typeof key.path === "string") return key;
    // Own members only: a JavaScript caller's "constructor" is no collection.
    const family = typeof key === "string" && Object.hasOwn(families, key) ? (families[key] as FamilyDef) : undefined;
    if (family === undefined) {
      const named = typeof key === "string" ? JSON.stringify(key) : inspect(key, { depth: 0 });
      throw new TypeError(`unknown collection ${named}; known: ${Object.keys(families).join(", ")}`);
    }
    return family;
  }

  #collectionPath(key: FamilyKey): string {
    return collectionPath(this.#family(key));
  }

  /** A singleton family (one per account, e.g. insights) has no id in its path: the id is ignored. */
  #itemPath(key: FamilyKey, id: string): string {
    const family = this.#family(key);
    if (!family.singleton && (typeof id !== "string" || id === "")) throw new TypeError(`${family.collection}: id must be a non-empty string`);
    return itemPath(family, encodeURIComponent(id));
  }

  #uploadPath(directory: string, filename: string): string {
    return `${this.#collectionPath("uploads")}/${encodeURIComponent(directory)}/${encodeURIComponent(filename)}`;
  }

  async #action(family: FamilyKey, id: string, action: string, body?: ArchiveOptions): Promise<void> {
    await this.request({ method: "POST", path: `${this.#itemPath(family, id)}/${action}`, body, idempotent: true });
  }

  /** The URL of a path relative to the base; `query` adds to any query string the path already has. */
  #url(path: string, query: Query | undefined): URL {
    const url = new URL(`${this.#base.href}${path.startsWith("/") ? path : `/${path}`}`);
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value === undefined || value === null) continue;
      for (const item of Array.isArray(value) ? value : [value]) url.searchParams.append(key, String(item));
    }
    return url;
  }

  /** Method and path relative to the base URL, for error messages. */
  #info(method: string, url: URL, attempts: number): RequestInfo {
    const prefix = this.#base.pathname;
    const path = url.pathname.startsWith(`${prefix}/`) ? url.pathname.slice(prefix.length) : url.pathname;
    return { method, path, attempts };
  }

  /** `accept: "bytes"` answers a successful body as bytes instead of parsing it; `"later"`, as a function that parses it. */
  async #send<T>(options: Pick<RequestOptions, "method" | "body" | "contentType" | "idempotent" | "timeoutMs"> & { accept?: "bytes" | "later" }, url: URL): Promise<ApiResponse<T>> {
    const method = options.method;
    const idempotent = options.idempotent ?? method !== "POST";
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const body = options.body;
    const payload = body === undefined ? undefined : body instanceof Uint8Array ? body : JSON.stringify(body);
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#apiKey}`,
      accept: "application/json",
      ...(options.accept === "bytes" ? { accept: "*/*" } : {}),
      "user-agent": this.#userAgent,
      ...(payload !== undefined ? { "content-type": options.contentType ?? "application/json" } : {}),
    };
    for (let attempt = 1; ; attempt++) {
      const info = this.#info(method, url, attempt);
      let failure: AudienceError;
      let retryable: boolean;
      let waitMs: number | undefined;
      try {
        const answer = await this.#attempt(method, url, headers, payload, timeoutMs);
        if (answer.status < 400) {
          if (attempt > 1) this.#onRetry?.({ reason: `${info.method} ${info.path}`, waitMs: 0, retry: attempt - 1, maxRetries: this.retry.maxRetries, answered: true });
          const { bytes, headers: { "content-type": type } } = answer;
          const parse = () => parseBody(bytes.toString("utf8"), type);
          const parsed = options.accept === "bytes" ? new Uint8Array(bytes) : options.accept === "later" ? parse : parse();
          return { status: answer.status, headers: answer.headers, body: parsed as T };
        }
        const raw = this.#redact(answer.bytes.toString("utf8"));
        waitMs = parseRetryAfter(answer.headers["retry-after"]);
        failure = apiError(info, answer.status, readErrorBody(parseBody(raw, answer.headers["content-type"]), raw), waitMs);
        // A 429 is a refusal: the service did not act on the request, so even a create may be sent again.
        retryable = RETRYABLE_STATUSES.has(answer.status) && (idempotent || answer.status === 429);
        // A 5xx may come from a proxy after the service acted: only a look tells.
        failure.outcomeUnknown = !idempotent && answer.status >= 500;
      } catch (error) {
        failure = this.#transportError(info, error, timeoutMs);
        retryable = failure instanceof ConnectionError && (idempotent || failure.beforeSend);
        failure.outcomeUnknown = !idempotent && failure instanceof ConnectionError && !failure.beforeSend;
      }
      if (!retryable || attempt > this.retry.maxRetries) throw failure;
      if (waitMs !== undefined && waitMs > this.retry.maxRetryAfterMs) throw failure;
      const wait = waitMs ?? backoffMs(this.retry, attempt);
      this.#onRetry?.({ reason: failure.message, waitMs: wait, retry: attempt, maxRetries: this.retry.maxRetries });
      await sleep(wait);
    }
  }

  async #attempt(method: HttpMethod, url: URL, headers: Record<string, string>, body: string | Uint8Array | undefined, timeoutMs: number): Promise<Attempt> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new TimedOut()), timeoutMs);
    try {
      const response = await dispatcherRequest.call(this.#dispatcher, { origin: url.origin, path: `${url.pathname}${url.search}`, method, headers, body: body ?? null, signal: controller.signal });
      const bytes = Buffer.from(await response.body.arrayBuffer());
      return { status: response.statusCode, headers: response.headers, bytes };
    } catch (error) {
      throw controller.signal.aborted ? new TimedOut("timed out", { cause: error }) : error;
    } finally {
      clearTimeout(timer);
    }
  }

  #transportError(info: RequestInfo, error: unknown, timeoutMs: number): AudienceError {
    if (error instanceof AudienceError) return error;
    const code = errorCode(error);
    if (error instanceof TimedOut || code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT") {
      return new TimeoutError(info, timeoutMs);
    }
    const detail = this.#redact(error instanceof Error ? error.message : String(error));
    const beforeSend = failedBeforeSend(error);
    const message = `${beforeSend ? "could not connect" : "connection failed"}${code ? ` (${code})` : ""}: ${detail}`;
    return new ConnectionError(info, message, beforeSend);
  }

  /** Removes the API key from text the service or the network sent back. */
  #redact(text: string): string {
    return text.split(this.#apiKey).join("<secret>");
  }
}

/** The media type of an upload's bytes, from its file name. */
function uploadType(filename: string): string {
  return filename.toLowerCase().endsWith(".csv") ? "text/csv" : "application/octet-stream";
}

/** Marks an attempt aborted by the client's own timer. */
class TimedOut extends Error {}

function asArray<T>(body: unknown, path: string): T[] {
  if (Array.isArray(body)) return body as T[];
  throw new TypeError(`GET ${path}: expected a JSON array, got ${body === undefined ? "an empty body" : typeof body}`);
}
