// A 503 against the emulator over loopback: every request but a create is sent again; a create's 503 is a
// typed error whose outcome is unknown (a proxy may answer 503 after the service acted), so its caller looks first.
import { createServer, type Server } from "node:http";
import { inspect } from "node:util";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AudienceClient, ServerError, ServiceUnavailableError } from "pulumi-audience/sdk/client";
import { emulator, type Client, type Json } from "../emulator/helpers.ts";
import { listen, shutdown } from "./loopback.ts";

const fast = { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 2 };
let api: Client;
let client: AudienceClient;

beforeAll(async () => {
  api = await emulator();
  client = new AudienceClient({ apiKey: api.apiKey, baseUrl: api.url, retry: fast, timeoutMs: 5000 });
});
beforeEach(async () => {
  await api.control("POST", "/reset");
});
afterAll(async () => {
  await client.close();
  await api.close();
});

const unavailable = (method: string, path: string) =>
  api.control("PUT", "/faults", { rules: [{ method, path, status: 503, error: "INTERNAL_SERVER_ERROR", count: 1 }] });
const logged = async (method: string) => (await api.control<Json[]>("GET", `/requests?method=${method}`)).body;
const leaks = (error: unknown, key: string) =>
  [inspect(error, { showHidden: true, depth: null }), JSON.stringify(error), String((error as Error).stack)].filter((t) => t.includes(key));

describe("a 503", () => {
  it("on a PATCH, a DELETE and a GET is sent again and succeeds", async () => {
    const created = await client.create("cohorts", { name: "Lapsed" });
    await unavailable("PATCH", "/cohorts/*");
    await expect(client.update("cohorts", created.id, { name: "Lapsed customers" })).resolves.toMatchObject({ name: "Lapsed customers" });
    await unavailable("GET", "/cohorts/*");
    await expect(client.get("cohorts", created.id)).resolves.toMatchObject({ name: "Lapsed customers" });
    await unavailable("DELETE", "/cohorts/*");
    await client.delete("cohorts", created.id);
    for (const method of ["PATCH", "GET", "DELETE"]) {
      expect((await logged(method)).filter((r) => r.path !== "/cohorts").map((r) => r.status)).toEqual([503, method === "DELETE" ? 204 : 200]);
    }
    expect((await client.list("cohorts")).map((c) => c.name)).not.toContain("Lapsed customers");
  });

  it("on a create is not sent again: a typed error says its outcome is unknown, and nothing more was created", async () => {
    await unavailable("POST", "/cohorts");
    const error = await client.create("cohorts", { name: "Lapsed" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(error).toBeInstanceOf(ServerError);
    expect(error).toMatchObject({ status: 503, outcomeUnknown: true, attempts: 1, method: "POST", path: "/cohorts" });
    expect((error as Error).message).toBe("POST /cohorts: 503 INTERNAL_SERVER_ERROR: Injected fault");
    expect((await logged("POST")).map((r) => r.status)).toEqual([503]);
    expect((await client.list("cohorts")).map((c) => c.name)).not.toContain("Lapsed");
    expect(leaks(error, api.apiKey)).toEqual([]);
  });
});

describe("the API key", () => {
  let echo: Server;
  let echoUrl: string;
  beforeAll(async () => {
    // A misbehaving proxy: answers 503 with the request's Authorization header in its body.
    echo = createServer((req, res) => {
      req.resume();
      res.writeHead(503, { "content-type": "application/json" })
        .end(JSON.stringify({ error: "INTERNAL_SERVER_ERROR", note: `refused ${String(req.headers.authorization)}` }));
    });
    echoUrl = await listen(echo);
  });
  afterAll(() => shutdown(echo));

  it.each(["create", "get"] as const)("is in no error of a %s answered 503 with the key echoed back", async (call) => {
    const key = "sk_live_echoed_0123456789abcdef";
    const c = new AudienceClient({ apiKey: key, baseUrl: echoUrl, retry: fast });
    try {
      const error = await (call === "create" ? c.create("cohorts", { name: "x" }) : c.get("cohorts", "c1")).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServiceUnavailableError);
      expect((error as ServiceUnavailableError).note).toBe("refused Bearer <secret>");
      expect((error as ServiceUnavailableError).attempts).toBe(call === "create" ? 1 : fast.maxRetries + 1);
      expect(leaks(error, key)).toEqual([]);
    } finally {
      await c.close();
    }
  });
});
