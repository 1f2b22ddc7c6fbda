// The client over real loopback sockets: keep-alive reuse, timeouts, refused connections.
// No nock here: aborting an in-flight undici request under nock's mocked socket is not faithful.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { inspect } from "node:util";
import { Agent, type Dispatcher } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AudienceClient, ConnectionError, TimeoutError } from "pulumi-audience/sdk/client";
import { listen, shutdown } from "./loopback.ts";

const API_KEY = "sk_live_transport_0123456789";

let server: Server;
let baseUrl: string;
const connections = new Set<unknown>();
const hits: { method: string; url: string; authorization: string | undefined }[] = [];
let handler: (req: IncomingMessage, res: ServerResponse) => void = () => {};

beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push({ method: req.method ?? "", url: req.url ?? "", authorization: req.headers.authorization });
    req.resume();
    req.on("end", () => handler(req, res));
  });
  server.on("connection", (socket) => connections.add(socket));
  baseUrl = await listen(server);
});

afterAll(() => shutdown(server));

function reset(next: typeof handler) {
  hits.length = 0;
  connections.clear();
  handler = next;
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
};

describe("transport", () => {
  it("reuses kept-alive connections across sequential requests", async () => {
    reset((_req, res) => json(res, 200, []));
    const client = new AudienceClient({ apiKey: API_KEY, baseUrl });
    try {
      for (let i = 0; i < 6; i++) await client.list("scopes");
    } finally {
      await client.close();
    }
    expect(hits.map((h) => h.url)).toEqual(Array(6).fill("/v1/scopes"));
    expect(hits.every((h) => h.authorization === `Bearer ${API_KEY}`)).toBe(true);
    // The pool may open a second socket while the first is being released, never one per request.
    expect(connections.size).toBeLessThanOrEqual(2);
  });

  it("gives up an attempt at the timeout and retries a GET", async () => {
    reset((_req, res) => setTimeout(() => json(res, 200, { id: "late" }), 400));
    const client = new AudienceClient({ apiKey: API_KEY, baseUrl, timeoutMs: 100, retry: { maxRetries: 1, baseDelayMs: 1 } });
    try {
      const error = await client.get("scopes", "s1").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TimeoutError);
      expect(error).toMatchObject({ method: "GET", path: "/scopes/s1", attempts: 2 });
      expect((error as Error).message).toBe("GET /scopes/s1: no answer within 100 ms");
    } finally {
      await client.close();
    }
    expect(hits).toHaveLength(2);
  });

  it("never resends a create that timed out: the service may have acted on it", async () => {
    reset((_req, res) => setTimeout(() => json(res, 201, { id: "created" }), 400));
    const client = new AudienceClient({ apiKey: API_KEY, baseUrl, timeoutMs: 100, retry: { maxRetries: 3, baseDelayMs: 1 } });
    try {
      const error = await client.create("scopes", { name: "s", population: { cohort_ids: [] }, payload: {}, preview: true }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TimeoutError);
      expect((error as TimeoutError).attempts).toBe(1);
    } finally {
      await client.close();
    }
    expect(hits).toHaveLength(1);
  });

  it("retries a create whose connection was refused, and never leaks the key in the error", async () => {
    // A port that was just open and is now closed refuses connections: the request never left.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));

    const client = new AudienceClient({ apiKey: API_KEY, baseUrl: `http://127.0.0.1:${port}/v1/`, retry: { maxRetries: 2, baseDelayMs: 1 } });
    try {
      const error = await client.create("scopes", { name: "s", population: { cohort_ids: [] }, payload: {}, preview: true }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConnectionError);
      expect(error).toMatchObject({ method: "POST", path: "/scopes", attempts: 3, beforeSend: true });
      expect((error as Error).message).toMatch(/^POST \/scopes: could not connect \(ECONNREFUSED\)/);
      for (const text of [inspect(error, { showHidden: true, depth: null }), JSON.stringify(error), String((error as Error).stack)]) {
        expect(text).not.toContain(API_KEY);
      }
    } finally {
      await client.close();
    }
  });

  it("sends through a dispatcher passed in, which needs only dispatch, and never closes it", async () => {
    reset((_req, res) => json(res, 200, []));
    const agent = new Agent();
    let dispatched = 0;
    let closed = false;
    // No undici API on it: the client calls request on whatever dispatches.
    const shared = {
      dispatch: (options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler) => (dispatched++, agent.dispatch(options, handler)),
      close: async () => { closed = true; },
    } as unknown as Dispatcher;
    try {
      for (const key of ["a", "b"]) {
        const client = new AudienceClient({ apiKey: `${API_KEY}_${key}`, baseUrl, dispatcher: shared });
        await client.list("cohorts", { ids: ["c1", "c2"] });
        await client.close();
      }
    } finally {
      await agent.close();
    }
    expect(dispatched).toBe(2);
    expect(closed).toBe(false);
    expect(hits.map((h) => `${h.method} ${h.url} ${h.authorization}`)).toEqual([
      `GET /v1/cohorts?ids=c1&ids=c2 Bearer ${API_KEY}_a`,
      `GET /v1/cohorts?ids=c1&ids=c2 Bearer ${API_KEY}_b`,
    ]);
  });
});
