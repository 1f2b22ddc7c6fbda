// The control plane: faults, the request log, reset, and that it lives only outside /v1.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { emulator, type Client, type Json } from "./helpers.ts";

let api: Client;
beforeAll(async () => {
  api = await emulator();
});
beforeEach(async () => {
  await api.control("POST", "/reset");
});
afterAll(() => api.close());

describe("faults", () => {
  it("answer matching requests with the status, error body and Retry-After, count times", async () => {
    await api.control("PUT", "/faults", { rules: [{ method: "GET", path: "/scopes", status: 503, retry_after: 2, count: 2 }] });
    for (const path of ["/v1/scopes", "/scopes"]) {
      const reply = await api.get<Json>(path);
      expect(reply.status).toBe(503);
      expect(reply.headers.get("retry-after")).toBe("2");
      expect(reply.body).toMatchObject({ error: "INTERNAL_SERVER_ERROR", id: expect.any(String), note: expect.any(String) });
    }
    expect((await api.get("/v1/scopes")).status).toBe(200);
    expect((await api.get("/v1/cohorts")).status).toBe(200);
  });

  it("match path patterns with * and never by chance at probability 0", async () => {
    await api.control("PUT", "/faults", { rules: [
      { path: "/cohorts/*", status: 429, probability: 0 },
      { path: "/cohorts/*", status: 500 },
    ] });
    const cohorts = (await api.get<Json[]>("/v1/cohorts")).body;
    expect((await api.get(`/v1/cohorts/${String(cohorts[0]?.id)}`)).status).toBe(500);
  });

  it("draw the same faults again under the same seed, and count what each rule applied", async () => {
    const draw = async () => {
      await api.control("PUT", "/faults", { seed: 42, rules: [{ method: "GET", path: "/cohorts", status: 503, probability: 0.5 }] });
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) statuses.push((await api.get("/v1/cohorts")).status);
      const listed = await api.control<{ rules: { applied: number }[] }>("GET", "/faults");
      return { statuses, applied: listed.body.rules[0]?.applied };
    };
    const first = await draw();
    expect(first.statuses).toContain(503);
    expect(first.statuses).toContain(200);
    expect(first.applied).toBe(first.statuses.filter((s) => s === 503).length);
    expect(await draw()).toEqual(first);
  });

  it("add latency", async () => {
    await api.control("PUT", "/faults", { rules: [{ path: "/cohorts", latency_ms: 300, count: 1 }] });
    const started = performance.now();
    expect((await api.get("/v1/cohorts")).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  });

  it("reset the connection before the request is processed: nothing changes", async () => {
    await api.control("PUT", "/faults", { rules: [{ method: "POST", path: "/cohorts", reset: "before", count: 1 }] });
    await expect(api.post("/v1/cohorts", { name: "Lost" })).rejects.toThrow();
    expect((await api.get<Json[]>("/v1/cohorts")).body.map((c) => c.name)).not.toContain("Lost");
  });

  it("reset the connection after the request is processed: the change is kept", async () => {
    await api.control("PUT", "/faults", { rules: [{ method: "POST", path: "/cohorts", reset: "after", count: 1 }] });
    await expect(api.post("/v1/cohorts", { name: "Kept" })).rejects.toThrow();
    expect((await api.get<Json[]>("/v1/cohorts")).body.map((c) => c.name)).toContain("Kept");
  });

  it("match a pattern of many wildcards without stalling the service, and keep ** across segments", async () => {
    const set = await api.control("PUT", "/faults", { rules: [
      { path: `${"*".repeat(900)}x`, status: 503 },
      { path: `/cohorts/${"*a".repeat(200)}`, status: 503 },
      { path: "/scopes/**", status: 502 },
    ] });
    expect(set.status).toBe(200);
    expect((await api.get<Json>(`/v1/cohorts/${"a".repeat(90)}`)).status).toBe(404);
    expect((await api.get<Json>("/v1/scopes/x/analysis/geography")).status).toBe(502);
    await api.control("DELETE", "/faults");
  });

  it("repeat the same draws for the same seed, and other draws for another", async () => {
    const run = async (seed: number) => {
      await api.control("POST", "/reset");
      const set = await api.control<Json>("PUT", "/faults", { seed, rules: [
        { method: "GET", path: "/cohorts", status: 503, probability: 0.3 },
        { method: "GET", path: "/cohorts", reset: "before", probability: 0.2 },
      ] });
      expect(set.body.seed).toBe(seed);
      for (let i = 0; i < 40; i++) await api.get("/v1/cohorts").catch(() => undefined);
      return (await api.control<Json[]>("GET", "/requests")).body.map((r) => r.status ?? "reset").join(",");
    };
    const first = await run(42);
    expect(first).toMatch(/503/);
    expect(first).toMatch(/reset/);
    expect(first).toMatch(/200/);
    expect(await run(42)).toBe(first);
    expect(await run(43)).not.toBe(first);
  });

  it("refuse a seed that is not an integer", async () => {
    const reply = await api.control<Json>("PUT", "/faults", { seed: 1.5, rules: [] });
    expect(reply.status).toBe(400);
    expect(reply.body.validationErrors).toEqual([expect.objectContaining({ path: "seed" })]);
  });

  it("refuse a rule without a path", async () => {
    const reply = await api.control<Json>("PUT", "/faults", { rules: [{ status: 500 }] });
    expect(reply.status).toBe(400);
    expect(reply.body.validationErrors).toEqual([expect.objectContaining({ path: "rules[0].path" })]);
  });

  it("refuse a rule that could never apply: a path no request has, a Retry-After without a status", async () => {
    const noSlash = await api.control<Json>("PUT", "/faults", { rules: [{ path: "cohorts", status: 500 }] });
    expect(noSlash.status).toBe(400);
    expect(noSlash.body.validationErrors).toEqual([expect.objectContaining({ path: "rules[0].path", message: "must start with / (as /cohorts), or with a wildcard: a request's path does" })]);
    const bare = await api.control<Json>("PUT", "/faults", { rules: [{ path: "/cohorts", retry_after: 5 }] });
    expect(bare.status).toBe(400);
    expect(bare.body.validationErrors).toEqual([expect.objectContaining({ path: "rules[0].retry_after", message: "retry_after is sent with an error status: give status too (429 or 503, say)" })]);
    expect((await api.control<Json>("PUT", "/faults", { rules: [{ path: "**/archive", status: 503, retry_after: 1 }] })).status).toBe(200);
    await api.control("DELETE", "/faults");
  });
});

describe("build progression", () => {
  it("refuses a mode it does not know, naming the family and every allowed form", async () => {
    const reply = await api.control<Json>("PUT", "/builds", { scopes: "sometimes" });
    expect(reply.status).toBe(400);
    expect(reply.body.validationErrors).toEqual([
      expect.objectContaining({ path: "scopes", message: "must be immediate, manual, or a duration in ms from 0 to 3600000" }),
    ]);
  });

  it("refuses a family that does not build, or is no family: a typo would leave builds as they were", async () => {
    for (const [body, path] of [[{ cohort: "manual" }, "cohort"], [{ uploads: "manual" }, "uploads"]] as const) {
      const reply = await api.control<Json>("PUT", "/builds", body);
      expect(reply.status).toBe(400);
      expect(reply.body.validationErrors).toEqual([expect.objectContaining({ path, message: expect.stringMatching(/^is not an allowed key: must be default or a collection that builds: .*cohorts/) })]);
    }
    const advance = await api.control<Json>("POST", "/builds/advance", { collection: "cohort" });
    expect(advance.status).toBe(400);
    expect(advance.body.validationErrors).toEqual([expect.objectContaining({ path: "collection", message: expect.stringMatching(/^must be a collection that builds: /) })]);
  });
});

describe("the request log", () => {
  it("refuses a since that is no seq of the log", async () => {
    const reply = await api.control<Json>("GET", "/requests?since=garbage");
    expect(reply.status).toBe(400);
    expect(reply.body.validationErrors).toEqual([expect.objectContaining({ path: "since", message: "must be a whole number: a `seq` of the log" })]);
  });

  it("records the API requests served, not the control plane's", async () => {
    await api.get("/v1/cohorts");
    await api.post("/v1/cohorts", { name: "" });
    const log = (await api.control<Json[]>("GET", "/requests")).body;
    expect(log.map((r) => [r.method, r.path, r.status])).toEqual([["GET", "/cohorts", 200], ["POST", "/cohorts", 400]]);
    expect(log[0]?.account_id).toEqual(expect.any(String));
    expect((await api.control<Json[]>("GET", "/requests?method=POST")).body).toHaveLength(1);
  });

  it("records requests whose connection was reset, with the fault and whether they were processed", async () => {
    await api.control("PUT", "/faults", { rules: [
      { method: "POST", path: "/cohorts", reset: "before", count: 1 },
      { method: "POST", path: "/cohorts", reset: "after", count: 1 },
      { method: "GET", path: "/cohorts", status: 429, retry_after: 0, count: 1 },
    ] });
    await expect(api.post("/v1/cohorts", { name: "Lost" })).rejects.toThrow();
    await expect(api.post("/v1/cohorts", { name: "Kept" })).rejects.toThrow();
    await api.get("/v1/cohorts");
    await api.get("/v1/cohorts");
    const log = (await api.control<Json[]>("GET", "/requests")).body;
    expect(log.map((r) => [r.method, r.status, r.fault, r.reset])).toEqual([
      ["POST", null, { reset: "before" }, "before"],
      ["POST", 201, { reset: "after" }, "after"],
      ["GET", 429, { status: 429 }, null],
      ["GET", 200, null, null],
    ]);
  });

  it("records requests refused before routing and on routes that do not exist", async () => {
    await api.get(`/v1/scopes/${"x".repeat(300)}`);
    await api.get("/v1/scopes/%E0%A4%A");
    await api.get("/v1/nothing-here");
    const log = (await api.control<Json[]>("GET", "/requests")).body;
    expect(log.map((r) => [r.method, String(r.path).slice(0, 12), r.status])).toEqual([
      ["GET", "/scopes/xxxx", 400], ["GET", "/scopes/%E0%", 400], ["GET", "/nothing-her", 404],
    ]);
  });

  it("records a request the client gave up on before the answer", async () => {
    await api.control("PUT", "/faults", { rules: [{ method: "GET", path: "/cohorts", latency_ms: 400, count: 1 }] });
    await expect(fetch(`${api.url}/v1/cohorts`, { headers: { authorization: `Bearer ${api.apiKey}` }, signal: AbortSignal.timeout(50) })).rejects.toThrow();
    let log: Json[] = [];
    // The service notices the closed connection when the delay ends.
    for (let i = 0; i < 50 && log.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      log = (await api.control<Json[]>("GET", "/requests")).body;
    }
    expect(log.map((r) => [r.method, r.status, r.fault, r.reset])).toEqual([["GET", null, { latency_ms: 400 }, "client"]]);
  });
});

describe("reset", () => {
  it("forgets resources and accounts but keeps the default key working", async () => {
    await api.post("/v1/cohorts", { name: "Temporary" });
    const extra = (await api.control<Json>("POST", "/accounts", { name: "Gone" })).body;
    await api.control("POST", "/reset");
    expect((await api.get<Json[]>("/v1/cohorts")).body.map((c) => c.name).sort()).toEqual(["Customers", "Leads"]);
    expect((await api.get("/v1/cohorts", String(extra.api_key))).status).toBe(401);
  });

  it("is not served under /v1", async () => {
    expect((await api.call("POST", "/v1/_emulator/reset", undefined, { key: null })).status).toBe(404);
  });
});
