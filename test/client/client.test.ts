// The client against recorded service behaviour (nock intercepts undici's sockets).
import { inspect } from "node:util";
import nock from "nock";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  AudienceApiError, AudienceClient, BadRequestError, ConflictError, ConnectionError, ExpiredApiKeyError, ForbiddenError,
  InvalidAuthorizationError, MalformedApiKeyError, MissingApiKeyError, NotFoundError, QuotaReachedError, RateLimitedError,
  ServerError, ValidationFailedError, mergePatch, type RetryNotice,
} from "pulumi-audience/sdk/client";
import { scope as scopeFamily, useCase } from "pulumi-audience/sdk/contract";

const API_KEY = "sk_live_9f8e7d6c5b4a_do_not_print";
const ORIGIN = "https://api.audience.test";
const SCOPE_ID = "2f0c7c8e-1d2b-4c55-9a0e-6f1b2a3c4d5e";
const COHORT_ID = "7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";

const scope = (overrides: Record<string, unknown> = {}) => ({
  id: SCOPE_ID, name: "Buyers", resource_type: "scopes", status: "ready", created_at: "2026-01-01T00:00:00Z",
  updated_at: "2026-01-01T00:00:00Z", population: { cohort_ids: [COHORT_ID] }, payload: { outcome_ids: [] }, preview: true,
  ...overrides,
});

// Tiny backoff: retries are exercised, not waited for (Retry-After tests measure real waits on purpose).
const fast = { maxRetries: 3, baseDelayMs: 1, maxDelayMs: 4 };
let client: AudienceClient;

beforeAll(() => {
  // nock switches itself on when first imported; in a shared worker it may be loaded already, and restored.
  if (!nock.isActive()) nock.activate();
  nock.disableNetConnect();
  client = new AudienceClient({ apiKey: API_KEY, baseUrl: ORIGIN, retry: fast });
});

afterEach(() => {
  nock.cleanAll();
});

afterAll(async () => {
  await client.close();
  nock.enableNetConnect();
  // Take nock's interceptors off the process: a file run after this one in the same worker sends real requests.
  nock.restore();
});

const service = () => nock(`${ORIGIN}/v1`);
const errorBody = (error: string, note: string, extra: Record<string, unknown> = {}) => ({
  error, note, id: "0b9d2a64-5f0e-4c1a-9d7e-3e2f1a0b9c8d", ...extra,
});
const rejection = (promise: Promise<unknown>) => promise.then(() => { throw new Error("expected a rejection"); }, (e: unknown) => e);

describe("base URL and headers", () => {
  it.each([ORIGIN, `${ORIGIN}/`, `${ORIGIN}/v1`, `${ORIGIN}/v1/`])("%s reaches /v1 with a bearer key and JSON", async (baseUrl) => {
    const c = new AudienceClient({ apiKey: API_KEY, baseUrl, userAgent: "acme-ci/1.0" });
    const mock = service()
      .matchHeader("authorization", `Bearer ${API_KEY}`)
      .matchHeader("accept", "application/json")
      .matchHeader("user-agent", "acme-ci/1.0")
      .get(`/scopes/${SCOPE_ID}`).reply(200, scope());
    try {
      expect(c.baseUrl).toBe(`${ORIGIN}/v1`);
      await expect(c.get("scopes", SCOPE_ID)).resolves.toMatchObject({ id: SCOPE_ID, name: "Buyers" });
    } finally {
      await c.close();
    }
    expect(mock.isDone()).toBe(true);
  });

  it("keeps a path prefix in front of /v1", async () => {
    const c = new AudienceClient({ apiKey: API_KEY, baseUrl: `${ORIGIN}/gateway/audience` });
    const mock = nock(ORIGIN).get("/gateway/audience/v1/scopes").reply(200, []);
    try {
      await expect(c.list("scopes")).resolves.toEqual([]);
    } finally {
      await c.close();
    }
    expect(mock.isDone()).toBe(true);
  });

  it("refuses a missing key or a base URL that is not http(s), naming the option", () => {
    expect(() => new AudienceClient({ apiKey: "", baseUrl: ORIGIN })).toThrow(/apiKey is required/);
    expect(() => new AudienceClient({ apiKey: API_KEY, baseUrl: "api.audience.test" })).toThrow(/baseUrl must be an absolute http\(s\) URL/);
    expect(() => new AudienceClient({ apiKey: API_KEY, baseUrl: "ftp://x.test" })).toThrow(/baseUrl must use http or https/);
    expect(() => new AudienceClient({ apiKey: API_KEY, baseUrl: ORIGIN, retry: { maxRetries: -1 } })).toThrow(/retry.maxRetries must be a non-negative number/);
  });
});

describe("resource calls", () => {
  it("creates with a JSON body and answers the parsed resource, unknown members kept", async () => {
    const body = { name: "Buyers", population: { cohort_ids: [COHORT_ID] }, payload: { outcome_ids: [] }, preview: true };
    let sent: { body: unknown; contentType: unknown } | undefined;
    const mock = service().post("/scopes").reply(201, async (request: Request) => {
      sent = { body: await request.json(), contentType: request.headers.get("content-type") };
      return scope({ field_from_a_newer_service: 1 });
    });
    const created = await client.create("scopes", body);
    expect(mock.isDone()).toBe(true);
    expect(sent).toEqual({ body, contentType: "application/json" });
    expect(created).toMatchObject({ id: SCOPE_ID, field_from_a_newer_service: 1 });
  });

  it("deletes (204, empty body) and acts on archive, unarchive, force_update", async () => {
    const archiveBodies: unknown[] = [];
    const mock = service()
      .delete(`/scopes/${SCOPE_ID}`).reply(204)
      .post(`/scopes/${SCOPE_ID}/archive`, (b) => { archiveBodies.push(b); return true; }).reply(204)
      .post(`/scopes/${SCOPE_ID}/unarchive`).reply(204)
      .post(`/scopes/${SCOPE_ID}/force_update`).reply(204);
    await expect(client.delete("scopes", SCOPE_ID)).resolves.toBeUndefined();
    await client.archive("scopes", SCOPE_ID, { cascade_to: [COHORT_ID] });
    await client.unarchive("scopes", SCOPE_ID);
    await client.forceUpdate("scopes", SCOPE_ID);
    expect(mock.isDone()).toBe(true);
    expect(archiveBodies).toEqual([{ cascade_to: [COHORT_ID] }]);
  });

  it("is typed by the contract: a body of the wrong shape or an unknown collection does not compile", async () => {
    // @ts-expect-error `preview` is required on a scope and `name` is a string
    const wrongBody = () => client.create("scopes", { name: 1, population: { cohort_ids: [COHORT_ID] }, payload: {} });
    expect(wrongBody).toBeTypeOf("function");
    // @ts-expect-error "scope" is not a collection ("scopes" is)
    await expect(client.get("scope", SCOPE_ID)).rejects.toThrow(/^unknown collection "scope"; known: scopes, /);
    // @ts-expect-error a plain object's own member is no collection either
    await expect(client.get("constructor", SCOPE_ID)).rejects.toThrow(/^unknown collection "constructor"; known: scopes, /);
    const found: { id: string; name: string; resource_type: string } = (await (async () => {
      service().get(`/scopes/${SCOPE_ID}`).reply(200, scope());
      return client.get("scopes", SCOPE_ID);
    })());
    expect(found).toMatchObject({ id: SCOPE_ID, preview: true });
  });

  it("takes a family's definition where it takes its collection name, typed alike", async () => {
    const body = { name: "Buyers", population: { cohort_ids: [COHORT_ID] }, payload: { outcome_ids: [] }, preview: true };
    const mock = service()
      .post("/scopes", body).reply(201, scope())
      .get(`/scopes/${SCOPE_ID}`).reply(200, scope())
      .get("/scopes").query({ ids: SCOPE_ID }).reply(200, [scope()])
      .patch(`/scopes/${SCOPE_ID}`, { preview: false }).reply(200, scope({ preview: false }))
      .post(`/scopes/${SCOPE_ID}/archive`).reply(204)
      .delete(`/scopes/${SCOPE_ID}`).reply(204)
      .get("/knowledgebase/use_cases").reply(200, []);
    const created: { preview?: boolean | null } = await client.create(scopeFamily, body);
    expect(created.preview).toBe(true);
    await expect(client.get(scopeFamily, SCOPE_ID)).resolves.toMatchObject({ id: SCOPE_ID });
    await expect(client.list(scopeFamily, { ids: [SCOPE_ID] })).resolves.toHaveLength(1);
    await expect(client.update(scopeFamily, SCOPE_ID, { preview: false })).resolves.toMatchObject({ preview: false });
    await client.archive(scopeFamily, SCOPE_ID);
    await client.delete(scopeFamily, SCOPE_ID);
    // The definition's path is used, not its collection name.
    await expect(client.list(useCase)).resolves.toEqual([]);
    expect(mock.isDone()).toBe(true);
    // @ts-expect-error `preview` is required on a scope, whether the family is named or passed
    const wrongBody = () => client.create(scopeFamily, { name: "Buyers", population: { cohort_ids: [COHORT_ID] }, payload: {} });
    expect(wrongBody).toBeTypeOf("function");
    await expect(client.get(scopeFamily, "")).rejects.toThrow("scopes: id must be a non-empty string");
    // @ts-expect-error an object that is no family definition
    await expect(client.get({ name: "scope" }, SCOPE_ID)).rejects.toThrow(/^unknown collection \{ name: 'scope' \}; known: scopes, /);
  });

  it("refuses an empty id before sending anything", async () => {
    await expect(client.get("scopes", "")).rejects.toThrow("scopes: id must be a non-empty string");
  });

  it("answers text for non-JSON media types and undefined for empty bodies", async () => {
    service().get("/traits.csv").reply(200, "id,name\n1,a\n", { "content-type": "text/csv" });
    service().post(`/scopes/${SCOPE_ID}/force_update`).reply(200, "");
    await expect(client.request({ method: "GET", path: "traits.csv" })).resolves.toBe("id,name\n1,a\n");
    await expect(client.request({ method: "POST", path: `/scopes/${SCOPE_ID}/force_update`, idempotent: true })).resolves.toBeUndefined();
  });
});

describe("merge patch on the wire", () => {
  const stored = {
    name: "Buyers",
    population: { cohort_ids: [COHORT_ID], exclusion_cohort_ids: [COHORT_ID] },
    payload: { outcome_ids: ["a"], location: { atlas_ids: ["x"], max_distance: 5000, selection: "nearest" } },
    preview: true,
  };

  it.each([
    ["a renamed scope sends only the name", { ...stored, name: "Loyal buyers" }, { name: "Loyal buyers" }],
    ["a removed member becomes null", { ...stored, population: { cohort_ids: [COHORT_ID] } }, { population: { exclusion_cohort_ids: null } }],
    ["arrays are replaced whole", { ...stored, payload: { ...stored.payload, outcome_ids: ["a", "b"] } }, { payload: { outcome_ids: ["a", "b"] } }],
    [
      "nested members are patched member by member",
      { ...stored, payload: { ...stored.payload, location: { atlas_ids: ["x"], selection: "nearest" } } },
      { payload: { location: { max_distance: null } } },
    ],
    ["enabling a pipeline", { ...stored, preview: false }, { preview: false }],
  ])("%s", async (_title, desired, expected) => {
    const patch = mergePatch(stored, desired);
    expect(patch).toEqual(expected);
    let sent: { body: unknown; contentType: unknown } | undefined;
    const mock = service().patch(`/scopes/${SCOPE_ID}`).reply(200, async (request: Request) => {
      sent = { body: await request.json(), contentType: request.headers.get("content-type") };
      return scope();
    });
    await client.update("scopes", SCOPE_ID, patch as Record<string, unknown>);
    expect(mock.isDone()).toBe(true);
    expect(sent).toEqual({ body: expected, contentType: "application/merge-patch+json" });
  });

  it("an unchanged document needs no PATCH at all", () => {
    expect(mergePatch(stored, structuredClone(stored))).toBeUndefined();
  });
});

describe("retries", () => {
  it.each([429, 502, 503, 504])("retries a GET answered %i, then succeeds", async (status) => {
    const mock = service()
      .get(`/scopes/${SCOPE_ID}`).reply(status, errorBody("INTERNAL_SERVER_ERROR", "try later"))
      .get(`/scopes/${SCOPE_ID}`).reply(200, scope());
    await expect(client.get("scopes", SCOPE_ID)).resolves.toMatchObject({ id: SCOPE_ID });
    expect(mock.isDone()).toBe(true);
  });

  it("retries a GET whose socket was reset", async () => {
    const reset = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
    const mock = service()
      .get(`/scopes/${SCOPE_ID}`).replyWithError(reset)
      .get(`/scopes/${SCOPE_ID}`).reply(200, scope());
    await expect(client.get("scopes", SCOPE_ID)).resolves.toMatchObject({ id: SCOPE_ID });
    expect(mock.isDone()).toBe(true);
  });

  it.each([
    ["PATCH", () => client.update("scopes", SCOPE_ID, { name: "x" }), () => service().patch(`/scopes/${SCOPE_ID}`)],
    ["DELETE", () => client.delete("scopes", SCOPE_ID), () => service().delete(`/scopes/${SCOPE_ID}`)],
    ["archive", () => client.archive("scopes", SCOPE_ID), () => service().post(`/scopes/${SCOPE_ID}/archive`)],
    ["unarchive", () => client.unarchive("scopes", SCOPE_ID), () => service().post(`/scopes/${SCOPE_ID}/unarchive`)],
    ["force_update", () => client.forceUpdate("scopes", SCOPE_ID), () => service().post(`/scopes/${SCOPE_ID}/force_update`)],
    ["lookup", () => client.lookup(SCOPE_ID, { email: "a@b.test" }), () => service().post(`/targets/${SCOPE_ID}/lookup`)],
  ])("retries %s after a 503", async (_name, call, route) => {
    route().reply(503, errorBody("INTERNAL_SERVER_ERROR", "busy"));
    const second = route().reply(200, {});
    await call();
    expect(second.isDone()).toBe(true);
  });

  it("stops after maxRetries and reports the attempts", async () => {
    const mock = service().get("/scopes").times(3).reply(502, "<html>Bad Gateway</html>", { "content-type": "text/html" });
    const c = new AudienceClient({ apiKey: API_KEY, baseUrl: ORIGIN, retry: { ...fast, maxRetries: 2 } });
    try {
      const error = await rejection(c.list("scopes"));
      expect(error).toBeInstanceOf(ServerError);
      expect(error).toMatchObject({ status: 502, attempts: 3, code: undefined, note: "<html>Bad Gateway</html>" });
      expect((error as Error).message).toBe("GET /scopes: 502 Bad Gateway: <html>Bad Gateway</html>");
    } finally {
      await c.close();
    }
    expect(mock.isDone()).toBe(true);
  });

  it.each([
    [400, "VALIDATION_FAILED"], [401, "INVALID_AUTHORIZATION"], [403, "FORBIDDEN"], [404, "NOT_FOUND"], [409, "CONFLICT"],
    [500, "INTERNAL_SERVER_ERROR"],
  ])("never retries a %i", async (status, code) => {
    service().get(`/scopes/${SCOPE_ID}`).reply(status, errorBody(code, "no"));
    const second = service().get(`/scopes/${SCOPE_ID}`).reply(200, scope());
    const error = await rejection(client.get("scopes", SCOPE_ID));
    expect(error).toMatchObject({ status, code, attempts: 1 });
    expect(second.isDone()).toBe(false);
  });

  it.each([502, 503, 504])("never resends a create answered %i: it may have been created", async (status) => {
    service().post("/scopes").reply(status, errorBody("INTERNAL_SERVER_ERROR", "upstream"));
    const second = service().post("/scopes").reply(201, scope());
    const error = await rejection(client.create("scopes", { name: "s", population: { cohort_ids: [COHORT_ID] }, payload: {}, preview: true }));
    expect(error).toBeInstanceOf(ServerError);
    expect(error).toMatchObject({ outcomeUnknown: true });
    expect(second.isDone()).toBe(false);
  });

  it("never resends a create whose connection was reset after sending", async () => {
    service().post("/scopes").replyWithError(Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }));
    const second = service().post("/scopes").reply(201, scope());
    const error = await rejection(client.create("scopes", { name: "s", population: { cohort_ids: [COHORT_ID] }, payload: {}, preview: true }));
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ beforeSend: false, attempts: 1, method: "POST", path: "/scopes", outcomeUnknown: true });
    expect((error as Error).message).toBe("POST /scopes: connection failed (ECONNRESET): socket hang up");
    expect(second.isDone()).toBe(false);
  });

  it("says a failure's outcome is known when the request was refused, never sent, or safe to resend", async () => {
    service().post("/scopes").reply(400, errorBody("VALIDATION_FAILED", "bad"));
    const refused = await rejection(client.create("scopes", { name: "s", population: { cohort_ids: [COHORT_ID] }, payload: {}, preview: true }));
    expect(refused).toMatchObject({ status: 400, outcomeUnknown: false });
    service().get(`/scopes/${SCOPE_ID}`).reply(500, errorBody("INTERNAL_SERVER_ERROR", "no"));
    expect(await rejection(client.get("scopes", SCOPE_ID))).toMatchObject({ status: 500, outcomeUnknown: false });
    const unreachable = new AudienceClient({ apiKey: API_KEY, baseUrl: ORIGIN, retry: { maxRetries: 0 } });
    service().post("/scopes").replyWithError(Object.assign(new Error("connect ECONNREFUSED 10.0.0.1:443"), { code: "ECONNREFUSED" }));
    const neverSent = await rejection(unreachable.create("scopes", { name: "s", population: { cohort_ids: [COHORT_ID] }, payload: {}, preview: true }));
    expect(neverSent).toMatchObject({ beforeSend: true, outcomeUnknown: false });
    await unreachable.close();
  });

  it("resends a create that never reached the service (connection refused)", async () => {
    const mock = service()
      .post("/scopes").replyWithError(Object.assign(new Error("connect ECONNREFUSED 10.0.0.1:443"), { code: "ECONNREFUSED" }))
      .post("/scopes").reply(201, scope());
    await expect(client.create("scopes", { name: "s", population: { cohort_ids: [COHORT_ID] }, payload: {}, preview: true }))
      .resolves.toMatchObject({ id: SCOPE_ID });
    expect(mock.isDone()).toBe(true);
  });

  it("resends a create refused with 429: the service did not act on it", async () => {
    const mock = service()
      .post("/scopes").reply(429, errorBody("RATE_LIMITED", "slow down"))
      .post("/scopes").reply(201, scope());
    await expect(client.create("scopes", { name: "s", population: { cohort_ids: [COHORT_ID] }, payload: {}, preview: true }))
      .resolves.toMatchObject({ id: SCOPE_ID });
    expect(mock.isDone()).toBe(true);
  });

  it("a DELETE whose first answer was lost and whose retry finds nothing counts as done", async () => {
    const mock = service()
      .delete(`/scopes/${SCOPE_ID}`).reply(504, errorBody("INTERNAL_SERVER_ERROR", "gateway timeout"))
      .delete(`/scopes/${SCOPE_ID}`).reply(404, errorBody("NOT_FOUND", "no such scope"));
    await expect(client.delete("scopes", SCOPE_ID)).resolves.toBeUndefined();
    expect(mock.isDone()).toBe(true);
    service().delete(`/scopes/${SCOPE_ID}`).reply(404, errorBody("NOT_FOUND", "no such scope"));
    await expect(client.delete("scopes", SCOPE_ID)).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe("Retry-After", () => {
  // Each test measures that the retry came no sooner than the service asked: a lower bound, never flaky.
  async function gapBeforeRetry(retryAfter: string): Promise<number> {
    let refusedAt = 0;
    let retriedAt = 0;
    const mock = service()
      .get("/scopes").reply(() => {
        refusedAt = performance.now();
        return [429, errorBody("QUOTA_EXCEEDED", "later"), { "retry-after": retryAfter }];
      })
      .get("/scopes").reply(() => {
        retriedAt = performance.now();
        return [200, []];
      });
    await client.list("scopes");
    expect(mock.isDone()).toBe(true);
    return retriedAt - refusedAt;
  }

  it("waits the delay-seconds it is told", async () => {
    expect(await gapBeforeRetry("1")).toBeGreaterThanOrEqual(990);
  });

  it("waits until the HTTP date it is told", async () => {
    // The date has whole seconds: two seconds ahead leaves at least one full second to wait.
    expect(await gapBeforeRetry(new Date(Date.now() + 2000).toUTCString())).toBeGreaterThanOrEqual(990);
  });

  it("says each wait before it sends again, with the failure and which retry, so that a long wait can be shown", async () => {
    const notices: RetryNotice[] = [];
    const told = new AudienceClient({ apiKey: API_KEY, baseUrl: ORIGIN, retry: fast, onRetry: (notice) => notices.push(notice) });
    service().get("/scopes").reply(503, errorBody("UNAVAILABLE", "busy"), { "retry-after": "1" }).get("/scopes").reply(200, []);
    try {
      await told.list("scopes");
    } finally {
      await told.close();
    }
    expect(notices).toEqual([
      { reason: expect.stringMatching(/^GET \/scopes: 503 UNAVAILABLE/), waitMs: 1000, retry: 1, maxRetries: 3 },
      { reason: "GET /scopes", waitMs: 0, retry: 1, maxRetries: 3, answered: true },
    ]);
  });

  it("does not wait out a pause longer than maxRetryAfterMs: the error carries it", async () => {
    service().post("/insights/query").reply(429, errorBody("QUOTA_EXCEEDED", "daily allowance used"), { "retry-after": "3600" });
    const second = service().post("/insights/query").reply(200, []);
    const error = await rejection(client.request({ method: "POST", path: "/insights/query", body: { sql: "select 1" }, idempotent: true }));
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ status: 429, code: "QUOTA_EXCEEDED", retryAfterMs: 3_600_000, attempts: 1 });
    expect(second.isDone()).toBe(false);
  });
});

describe("typed errors", () => {
  it("a validation failure names each member and reads well", async () => {
    service().patch(`/scopes/${SCOPE_ID}`).reply(400, errorBody("VALIDATION_FAILED", "The request body is invalid", {
      validationErrors: [{ path: "population.cohort_ids[0]", message: "must be a uuid", context: { errorType: "invalid_format" } }],
    }));
    const error = await rejection(client.update("scopes", SCOPE_ID, { population: { cohort_ids: ["nope"] } }));
    expect(error).toBeInstanceOf(ValidationFailedError);
    expect(error).toBeInstanceOf(AudienceApiError);
    expect(error).toMatchObject({
      status: 400, code: "VALIDATION_FAILED", note: "The request body is invalid", errorId: "0b9d2a64-5f0e-4c1a-9d7e-3e2f1a0b9c8d",
      method: "PATCH", path: `/scopes/${SCOPE_ID}`, name: "ValidationFailedError",
      validationErrors: [{ path: "population.cohort_ids[0]", message: "must be a uuid", context: { errorType: "invalid_format" } }],
    });
    expect((error as Error).message).toBe(`PATCH /scopes/${SCOPE_ID}: 400 VALIDATION_FAILED: population.cohort_ids[0]: must be a uuid`);
  });

  it("a validation failure without entries still reads as one, with the note", async () => {
    service().post("/scopes").reply(400, errorBody("VALIDATION_FAILED", "identity sets cannot be matched"));
    const error = await rejection(client.create("scopes", { name: "s", population: { cohort_ids: [COHORT_ID] }, payload: {}, preview: true }));
    expect(error).toBeInstanceOf(ValidationFailedError);
    expect(error).toMatchObject({ validationErrors: [], note: "identity sets cannot be matched" });
    expect((error as Error).message).toBe("POST /scopes: 400 VALIDATION_FAILED: identity sets cannot be matched");
  });

  it.each([
    [400, "BAD_REQUEST", BadRequestError],
    [401, "INVALID_AUTHORIZATION", InvalidAuthorizationError],
    [401, "MISSING_API_KEY", MissingApiKeyError],
    [401, "MALFORMED_API_KEY", MalformedApiKeyError],
    [401, "EXPIRED_API_KEY", ExpiredApiKeyError],
    [403, "FORBIDDEN", ForbiddenError],
    [403, "MAX_RESOURCES_REACHED", QuotaReachedError],
    [404, "NOT_FOUND", NotFoundError],
    [409, "CONFLICT", ConflictError],
    [429, "QUOTA_EXCEEDED", RateLimitedError],
    [500, "INTERNAL_SERVER_ERROR", ServerError],
  ])("%i %s becomes %O", async (status, code, Class) => {
    const c = new AudienceClient({ apiKey: API_KEY, baseUrl: ORIGIN, retry: { maxRetries: 0 } });
    service().post("/scopes").reply(status, errorBody(code, `note for ${code}`));
    try {
      const error = await rejection(c.create("scopes", { name: "s", population: { cohort_ids: [COHORT_ID] }, payload: {}, preview: true }));
      expect(error).toBeInstanceOf(Class);
      expect(error).toMatchObject({ status, code, note: `note for ${code}`, errorId: "0b9d2a64-5f0e-4c1a-9d7e-3e2f1a0b9c8d", method: "POST", path: "/scopes" });
      expect((error as Error).message).toBe(`POST /scopes: ${status} ${code}: note for ${code}`);
    } finally {
      await c.close();
    }
  });
});

describe("ids batching", () => {
  it("250 ids become 3 ordered requests of at most 100, results in the order of the ids", async () => {
    const ids = Array.from({ length: 250 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`);
    const batches: string[][] = [];
    service().get("/scopes").query(true).times(3).reply((request: Request) => {
      const batch = new URL(request.url).searchParams.getAll("ids");
      batches.push(batch);
      // The service answers in its own order: the client restores the order of `ids`.
      return [200, batch.toReversed().map((id) => scope({ id }))];
    });
    const scopes = await client.list("scopes", { ids });
    expect(batches).toEqual([ids.slice(0, 100), ids.slice(100, 200), ids.slice(200)]);
    expect(scopes.map((s) => s.id)).toEqual(ids);
  });

  it("an empty id list asks nothing and finds nothing", async () => {
    await expect(client.list("scopes", { ids: [] })).resolves.toEqual([]);
  });
});

describe("a list read later", () => {
  it("asks as list asks, retries as it retries, and answers the same documents when called", async () => {
    const reset = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
    const mock = service()
      .matchHeader("accept", "application/json")
      .get("/scopes").replyWithError(reset)
      .get("/scopes").reply(200, [scope(), scope({ id: COHORT_ID, name: "Second" })]);
    const read = await client.listLater("scopes");
    expect(mock.isDone()).toBe(true);
    expect(read()).toEqual([scope(), scope({ id: COHORT_ID, name: "Second" })]);
  });

  it("parses the body only when called: a body that is no list fails there, as list fails", async () => {
    service().get("/scopes").twice().reply(200, { not: "a list" });
    const read = await client.listLater("scopes");
    expect(read).toThrow("GET /scopes: expected a JSON array, got object");
    await expect(client.list("scopes")).rejects.toThrow("GET /scopes: expected a JSON array, got object");
  });
});

describe("Link paging", () => {
  it("follows rel=next, absolute or relative, until there is none", async () => {
    const requested: string[] = [];
    const page = (items: number[], link?: string) => (request: Request) => {
      const url = new URL(request.url);
      requested.push(`${url.pathname}${url.search}`);
      return [200, items.map((n) => ({ id: `loc-${n}` })), { "x-total-count": "5", ...(link ? { link } : {}) }] as const;
    };
    service()
      .get("/locations").query({ limit: "2" }).reply(page([1, 2], `<${ORIGIN}/v1/locations?limit=2&offset=2>; rel="next", <${ORIGIN}/v1/locations?limit=2&offset=4>; rel="last"`))
      .get("/locations").query({ limit: "2", offset: "2" }).reply(page([3, 4], '</v1/locations?limit=2&offset=4>; rel="next"'))
      .get("/locations").query({ limit: "2", offset: "4" }).reply(page([5]));
    const ids: string[] = [];
    for await (const location of client.paginate<{ id: string }>("/locations", { limit: 2 })) ids.push(location.id);
    expect(ids).toEqual(["loc-1", "loc-2", "loc-3", "loc-4", "loc-5"]);
    expect(requested).toEqual(["/v1/locations?limit=2", "/v1/locations?limit=2&offset=2", "/v1/locations?limit=2&offset=4"]);
  });

  it("keeps a query already in the path and adds the page size", async () => {
    const mock = service().get("/atlases/a1/locations").query({ sort: "name", limit: "50" }).reply(200, [{ id: "loc-1" }]);
    const seen: unknown[] = [];
    for await (const location of client.paginate("atlases/a1/locations?sort=name", { limit: 50 })) seen.push(location);
    expect(seen).toEqual([{ id: "loc-1" }]);
    expect(mock.isDone()).toBe(true);
  });

  it("refuses a next link to another host, so the key never travels there", async () => {
    service().get("/locations").reply(200, [{ id: "loc-1" }], { link: '<https://elsewhere.test/v1/locations?offset=1>; rel="next"' });
    const seen: unknown[] = [];
    const error = await rejection((async () => {
      for await (const location of client.paginate("/locations")) seen.push(location);
    })());
    expect(seen).toEqual([{ id: "loc-1" }]);
    expect((error as Error).message).toBe("GET /locations: refusing to follow a next link to another origin (https://elsewhere.test)");
  });
});

describe("the API key never leaks", () => {
  it("not from a client, nor from an error whose note echoes it", async () => {
    service().get(`/scopes/${SCOPE_ID}`).reply(401, errorBody("MALFORMED_API_KEY", `key ${API_KEY} is malformed`));
    const error = await rejection(client.get("scopes", SCOPE_ID));
    expect(error).toBeInstanceOf(MalformedApiKeyError);
    expect((error as Error).message).toBe(`GET /scopes/${SCOPE_ID}: 401 MALFORMED_API_KEY: key <secret> is malformed`);
    const views = [
      inspect(error, { showHidden: true, depth: null }), JSON.stringify(error), String((error as Error).stack),
      inspect(client, { showHidden: true, depth: null }), JSON.stringify(client), String(client), Object.keys(client).join(),
    ];
    for (const view of views) expect(view).not.toContain(API_KEY);
    expect(inspect(client)).toContain(`${ORIGIN}/v1`);
  });
});
