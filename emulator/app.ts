// The HTTP service: Fastify with the service's error body, JSON and merge-patch bodies, `/v1` and unprefixed
// routes, Bearer auth, injected faults and the request log. Route modules add the endpoints.
import { gunzipSync } from "node:zlib";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { codeForStatus } from "pulumi-audience/sdk/contract";
import { ApiError, badRequest, fieldError, forbidden, notFound, validationFailed } from "./errors.ts";
import { Builds, type BuildSettings } from "./builds.ts";
import { Faults, type FaultRule } from "./faults.ts";
import { RequestLog, type LoggedRequest } from "./request-log.ts";
import { RecordStore, StorageError } from "./store.ts";
import { maskedCopy, maskSecrets } from "./masking.ts";
import type { Account } from "./model.ts";
import { ServiceState } from "./state.ts";
import type { EmulatorFamily } from "./family.ts";
import { singular } from "./nouns.ts";
import { answersAsStored, FamilyRegistry } from "./registry.ts";
import { verifySignedUrl } from "./signing.ts";
import { worldsOf } from "./outputs/worlds.ts";
import { Webhooks } from "./webhooks.ts";
import type { EmulatorContext } from "./context.ts";
import { routes } from "./routes/index.ts";
import { ClientTextError, copyJson, decodeClientText, parseClientJson } from "./json.ts";
import { refusePaging } from "./routes/paging.ts";

declare module "fastify" {
  interface FastifyRequest {
    account?: Account;
    /** The injected fault this request met, for the hooks after routing and the request log. */
    fault?: FaultRule;
    /** performance.now() when the request arrived, for the request log. */
    startedAt?: number;
    /** Set once the request is in the request log. */
    logged?: boolean;
  }
  interface FastifyContextConfig {
    /** Served without an API key. */
    public?: boolean;
    /** A valid signed URL (signUrl) stands in for the API key; outputs engine seam for hosted CSV downloads. */
    signed?: boolean;
    /** A paged listing: takes `limit` and `offset` (every other route refuses them). */
    paged?: boolean;
  }
}

export interface AppOptions {
  /** What the emulator knows of each family beyond the contract (emulator/families/index.ts lists them all). */
  families: readonly EmulatorFamily[];
  dataDir?: string;
  apiKey?: string;
  builds?: BuildSettings;
  world?: unknown;
}

const MIB = 1024 * 1024;
/** Body size limit of ordinary requests; uploads set their own. */
export const BODY_LIMIT = MIB;
const JSON_TYPES = ["application/json", "application/merge-patch+json", "application/json+merge-patch"];
/** Longer than any id of the service. */
const MAX_PATH_SEGMENT = 100;

export interface App {
  app: FastifyInstance;
  ctx: EmulatorContext;
  apiKey: string;
  close(): Promise<void>;
}

export function createApp(options: AppOptions): App {
  const families = new FamilyRegistry(options.families);
  const store = new RecordStore(options.dataDir);
  const state = new ServiceState(store, families, {
    // What a new account starts with: each family's seed (classic cohorts, the forecast of early access).
    onNewAccount: (state, account) => {
      for (const family of families.all()) family.emulator.seed?.(state, account);
    },
  });
  const apiKey = ensureDefaultAccount(state, options.apiKey);
  const builds = new Builds(state, families, options.builds);
  const webhooks = new Webhooks();
  const faults = new Faults();
  const requests = new RequestLog();

  /** Every request received goes in the log once, however it ended; the control plane's do not. */
  const log = (request: FastifyRequest, status: number | null, reset: LoggedRequest["reset"]) => {
    if (request.logged || request.url.startsWith("/_emulator")) return;
    request.logged = true;
    const [path = "/", query = ""] = request.url.split("?");
    const fault = request.fault;
    requests.add({
      method: request.method, path, query, status, account_id: request.account?.id ?? null,
      duration_ms: Math.round(performance.now() - (request.startedAt ?? performance.now())),
      fault: fault ? {
        ...(fault.status !== undefined ? { status: fault.status } : {}),
        ...(fault.latency_ms !== undefined ? { latency_ms: fault.latency_ms } : {}),
        ...(fault.reset !== undefined ? { reset: fault.reset } : {}),
      } : null,
      reset,
    });
  };

  const app = Fastify({
    bodyLimit: BODY_LIMIT,
    routerOptions: { maxParamLength: MAX_PATH_SEGMENT },
    logger: false,
    // Refusals made before routing (a path segment too long or not decodable) answer in the service's body
    // too, without echoing the path back.
    frameworkErrors: (error, request, reply) => {
      const note = error.code === "FST_ERR_MAX_PARAM_LENGTH"
        ? `A path segment is longer than the service accepts (${MAX_PATH_SEGMENT} characters)`
        : "The path is not a valid URL: check its percent-encoding";
      log(request, 400, null);
      sendError(reply, badRequest(note));
    },
    // `/v1/...` and `/...` are the same routes; the control plane exists only unprefixed.
    rewriteUrl: (req) => {
      const url = req.url ?? "/";
      if (url === "/v1" || url.startsWith("/v1?")) return `/${url.slice(3)}`;
      if (url.startsWith("/v1/") && !url.startsWith("/v1/_emulator")) return url.slice(3);
      return url;
    },
  });

  // Declared up front, so every request object has the same shape (members added later make property access slow).
  for (const member of ["account", "fault", "startedAt", "logged"] as const) app.decorateRequest(member, undefined);

  /** The listings that page (routes with `config.paged`), as a refusal of `limit` elsewhere names them. */
  const pagedListings: string[] = [];
  app.addHook("onRoute", (route) => {
    const path = route.url.replace(/:(\w+)/g, "{$1}");
    if (route.config?.paged === true && !pagedListings.includes(path)) pagedListings.push(path);
  });

  app.removeContentTypeParser(["application/json", "text/plain"]);
  app.addContentTypeParser(JSON_TYPES, { parseAs: "buffer" }, (req, bytes, done) => {
    try {
      const source = decodeClientText(decodedBody(req.headers["content-encoding"], bytes as Buffer));
      done(null, source.trim() === "" ? undefined : parseClientJson(source));
    } catch (error) {
      done(bodyRefusal(error as Error), undefined);
    }
  });

  // A stored document's text is kept while it is stored (resource-index.ts); any other answer is written anew.
  const textOf = (value: unknown): string =>
    (typeof value === "object" && value !== null ? state.textOf(value) : undefined) ?? JSON.stringify(value) ?? "null";

  const ctx: EmulatorContext = {
    state, builds, faults, webhooks, requests, worldOf: worldsOf(state, options.world),
    usage: {
      add: (accountId, metric, n = 1) => state.store.transaction(() => state.addUsage(accountId, metric, n)),
      get: (accountId) => state.usage(accountId),
    },
    resources: {
      get: (accountId, collection, id) => {
        const r = state.resource(collection, id);
        return r?.account_id === accountId ? r.doc : undefined;
      },
      list: (accountId, collection, opts) => state.resources(accountId, collection, opts).map((r) => r.doc),
      update: (accountId, collection, id, fields) => state.store.transaction(() => {
        const r = state.resource(collection, id);
        if (r?.account_id !== accountId) return undefined;
        Object.assign(r.doc, fields);
        state.save(r);
        return r.doc;
      }),
    },
    account(request) {
      if (!request.account) throw new ApiError("MISSING_API_KEY", "Send the header Authorization: Bearer <API_KEY>");
      return request.account;
    },
    owned(request, collection, id) {
      const account = ctx.account(request);
      const found = state.resource(collection, id);
      const noun = singular(collection);
      if (!found) throw notFound(`No ${noun} with id ${id} exists`);
      if (!state.canAccess(found, account.id)) throw forbidden(`The ${noun} ${id} belongs to another account`);
      return found;
    },
    present(request, resource) {
      const family = families.of(resource.collection);
      // A stored document is never changed in place (a save stores a new one) and has its credentials masked, so
      // it is answered as it is unless its family adds to it; one with credentials is masked again all the same,
      // on a copy of what leads to them. A family's own presentation may change what it is given: a whole copy.
      if (!family || answersAsStored(family)) return resource.doc;
      if (!family.emulator.present) return maskedCopy(family, resource.doc);
      const doc = maskSecrets(family, copyJson(resource.doc));
      return family.emulator.present(ctx, request, doc) ?? doc;
    },
    json: (value) => textOf(value),
    baseUrl(request) {
      return `${request.protocol}://${request.host}`;
    },
    reset() {
      state.store.transaction(() => {
        state.store.clear();
        ensureDefaultAccount(state, apiKey);
        state.setSetting("builds", options.builds ?? {});
      });
      faults.set([]);
      requests.clear();
    },
  };

  // What a finished build computes is its family's to say; who hears of a failed build or a finished re-run too.
  builds.onReady((resource) => families.of(resource.collection)?.emulator.build?.(ctx, resource));
  builds.onEvent((event, resource) => {
    for (const family of families.all()) family.emulator.onBuildEvent?.(ctx, event, resource);
  });

  /** What a request meets before its route: an injected fault, then its signed URL or its API key. */
  const admit = (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
    try {
      const fault = request.fault;
      if (fault?.reset === "before") {
        log(request, null, "before");
        request.raw.socket.destroy();
        reply.hijack();
        return done();
      }
      if (fault?.status !== undefined) {
        throw new ApiError(fault.error ?? codeForStatus(fault.status) ?? "BAD_REQUEST", "Injected fault", {
          status: fault.status, headers: fault.retry_after !== undefined ? { "retry-after": String(fault.retry_after) } : {},
        });
      }
      // routeOptions is made anew on every read.
      const { url, config } = request.routeOptions;
      if (config?.signed === true && new URL(request.url, "http://localhost").searchParams.has("signature")) {
        const check = verifySignedUrl(request.url);
        if (check !== "valid") throw forbidden(check === "expired" ? "The signed URL has expired: read the resource again for a fresh URL" : "The URL's signature is not valid");
      } else if (url !== undefined && config?.public !== true) {
        request.account = authenticate(state, request.headers.authorization);
      }
      if (url !== undefined && config?.paged !== true) refusePaging(request.query, pagedListings);
      done();
    } catch (error) {
      done(error as Error);
    }
  };

  // The hooks every request runs take callbacks rather than promises: no promise and no extra turn per request.
  app.addHook("onRequest", (request, reply, done) => {
    request.startedAt = performance.now();
    if (request.url.startsWith("/_emulator")) return done();
    request.fault = faults.match(request.method, request.url.split("?")[0] ?? "/");
    if (request.fault?.latency_ms) setTimeout(() => admit(request, reply, done), request.fault.latency_ms);
    else admit(request, reply, done);
  });

  app.addHook("onSend", (request, reply, payload, done) => {
    if (request.fault?.reset === "after") {
      // The request was processed; the client never hears back.
      log(request, reply.statusCode, "after");
      reply.raw.socket?.destroy();
    }
    done(null, payload);
  });

  app.addHook("onResponse", (request, reply, done) => {
    log(request, reply.statusCode, null);
    done();
  });

  app.addHook("onRequestAbort", async (request) => {
    log(request, null, "client");
  });

  // Answers are JSON; lists of stored documents are joined from their kept texts (ctx.json).
  app.setReplySerializer((payload) => Array.isArray(payload) && state.isStoredDoc(payload[0])
    ? `[${payload.map(textOf).join(",")}]`
    : textOf(payload));

  app.setNotFoundHandler((request) => {
    throw notFound(`No route ${request.method} ${request.url.split("?")[0] ?? ""}`);
  });

  /** The larger limits of families' own routes, as the body-too-large refusal names them: "uploads 32 MiB". */
  const largerLimits = families.all().flatMap((f) => (f.emulator.bodyLimit ? [`${f.collection} ${f.emulator.bodyLimit / MIB} MiB`] : []));
  app.setErrorHandler((error: unknown, _request, reply) => {
    let apiError: ApiError;
    if (error instanceof ApiError) {
      apiError = error;
    } else {
      const e = error as { statusCode?: number; code?: string; message?: string };
      if (e.statusCode !== undefined && e.statusCode < 500) {
        // Framework refusals (unsupported media type, body too large, bad JSON) are the client's fault.
        apiError = badRequest(e.code === "FST_ERR_CTP_BODY_TOO_LARGE"
          ? `The body is larger than the service accepts (${[`${BODY_LIMIT / MIB} MiB`, ...largerLimits].join("; ")})` : e.message ?? "Bad request");
      } else if (error instanceof StorageError) {
        console.error("The data directory refused a write:", error.cause ?? error);
        apiError = storageFailure(error);
      } else {
        console.error(error);
        apiError = new ApiError("INTERNAL_SERVER_ERROR", "The service failed to process the request");
      }
    }
    sendError(reply, apiError);
  });

  for (const register of routes(families)) register(app, ctx);

  return {
    app, ctx, apiKey,
    async close() {
      builds.close();
      await app.close();
      await webhooks.settle();
      store.close();
    },
  };
}

/**
 * A JSON body as sent under its Content-Encoding: plain, or gzip (decompressed up to the body limit). A body that
 * is not what its header says, or an encoding the service does not take, is refused rather than read as it comes.
 */
function decodedBody(encoding: string | undefined, bytes: Buffer): Buffer {
  const name = encoding?.trim().toLowerCase();
  if (name === undefined || name === "" || name === "identity") return bytes;
  if (name !== "gzip") throw badRequest(`Content-Encoding ${encoding} is not taken: send the body plain or gzip-compressed`);
  try {
    return gunzipSync(bytes, { maxOutputLength: BODY_LIMIT });
  } catch {
    throw badRequest(`The body is not gzip data of at most ${BODY_LIMIT / MIB} MiB, though Content-Encoding says gzip`);
  }
}

/** A body that cannot be read: naming the member at fault when it is known. */
function bodyRefusal(error: Error): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof ClientTextError && error.path !== undefined) {
    return validationFailed([fieldError(error.path, error.message, "invalid_string")]);
  }
  return badRequest(`The body is not acceptable JSON: ${error instanceof ClientTextError ? `the body ${error.message}` : error.message}`);
}

/** 507 for a full disk (RFC 4918 Insufficient Storage), 500 for any other refused write; either way nothing was kept. */
function storageFailure(error: StorageError): ApiError {
  const what = error.full ? "its disk is full" : "its data directory refused the write";
  return new ApiError("INTERNAL_SERVER_ERROR", `The service could not save the change: ${what} (${error.message}). Nothing of this request was kept; retry once the cause is fixed.`, {
    status: error.full ? 507 : 500,
  });
}

function sendError(reply: FastifyReply, error: ApiError): void {
  void reply.code(error.status).headers(error.headers).type("application/json").send(error.body());
}

/** The default account exists once; the given key (or a fresh one) opens it. */
function ensureDefaultAccount(state: ServiceState, apiKey: string | undefined): string {
  return state.store.transaction(() => {
    let id = state.setting<string>("default_account");
    if (!id || !state.account(id)) {
      id = state.createAccount({ name: "Default account", early_access: ["forecasts"], owner_email: "owner@example.com" }).id;
      state.setSetting("default_account", id);
    }
    const known = apiKey !== undefined ? state.keyRecord(apiKey) : undefined;
    if (apiKey !== undefined && known?.account_id === id) return apiKey;
    return state.addKey(id, apiKey);
  });
}

function authenticate(state: ServiceState, header: string | undefined): Account {
  if (header === undefined || header.trim() === "") {
    throw new ApiError("MISSING_API_KEY", "Send the header Authorization: Bearer <API_KEY>");
  }
  // The scheme's name is case-insensitive (RFC 7235 section 2.1).
  const match = /^bearer +([\x21-\x7e]+)$/i.exec(header.trim());
  if (!match) throw new ApiError("MALFORMED_API_KEY", "The Authorization header must read: Bearer <API_KEY>");
  const record = state.keyRecord(match[1] as string);
  if (!record) throw new ApiError("INVALID_AUTHORIZATION", "The API key is not valid");
  if (record.expires_at !== null && Date.parse(record.expires_at) <= Date.now()) {
    throw new ApiError("EXPIRED_API_KEY", `The API key expired at ${record.expires_at}`);
  }
  const account = state.account(record.account_id);
  if (!account) throw new ApiError("INVALID_AUTHORIZATION", "The API key's account no longer exists");
  return account;
}
