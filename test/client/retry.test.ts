// Backoff and Retry-After arithmetic, how a failure is read as "never sent", and Link headers.
import { describe, expect, it } from "vitest";
import { backoffMs, DEFAULT_RETRY, nextLink, parseRetryAfter } from "pulumi-audience/sdk/client";
import { failedBeforeSend } from "../../sdk/client/retry.ts";

describe("backoffMs", () => {
  const policy = { ...DEFAULT_RETRY, baseDelayMs: 100, maxDelayMs: 1000 };

  it("doubles each retry, jittered between half and all of the step", () => {
    expect([1, 2, 3].map((n) => backoffMs(policy, n, () => 0))).toEqual([50, 100, 200]);
    expect([1, 2, 3].map((n) => backoffMs(policy, n, () => 1))).toEqual([100, 200, 400]);
  });

  it("never exceeds maxDelayMs", () => {
    expect(backoffMs(policy, 10, () => 1)).toBe(1000);
    expect(backoffMs(policy, 60, () => 0.5)).toBe(750);
  });
});

describe("parseRetryAfter", () => {
  const now = Date.parse("2026-11-22T05:00:00Z");

  it.each([
    ["2", 2000],
    [" 0 ", 0],
    ["1.5", 1500],
    ["Sun, 22 Nov 2026 05:00:30 GMT", 30_000],
    ["Sun, 22 Nov 2026 04:59:00 GMT", 0],
    [["3", "9"], 3000],
  ] as const)("%j -> %i ms", (header, ms) => {
    expect(parseRetryAfter(header as string | string[], now)).toBe(ms);
  });

  it.each([undefined, "", "soon", "-1"])("%j is no instruction", (header) => {
    expect(parseRetryAfter(header, now)).toBeUndefined();
  });
});

describe("failedBeforeSend", () => {
  const withCode = (code: string) => Object.assign(new Error(code), { code });

  it.each(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "UND_ERR_CONNECT_TIMEOUT"])("%s: the request never left", (code) => {
    expect(failedBeforeSend(withCode(code))).toBe(true);
    expect(failedBeforeSend(new TypeError("fetch failed", { cause: withCode(code) }))).toBe(true);
    expect(failedBeforeSend(new AggregateError([withCode(code)]))).toBe(true);
  });

  it.each(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET"])("%s: the service may have seen it", (code) => {
    expect(failedBeforeSend(withCode(code))).toBe(false);
  });

  it("an error without a code proves nothing", () => {
    expect(failedBeforeSend(new Error("boom"))).toBe(false);
  });
});

describe("nextLink", () => {
  it.each([
    ['<https://a.test/v1/locations?offset=2>; rel="next"', "https://a.test/v1/locations?offset=2"],
    ['</v1/locations?offset=0>; rel="prev", </v1/locations?offset=4>; rel=next', "/v1/locations?offset=4"],
    ['</p?offset=4>; title="page 3, of 9; roughly"; rel="last next"', "/p?offset=4"],
    ['</p?offset=0>; rel="first", </p?offset=8>; REL="Next"', "/p?offset=8"],
    [["</p?offset=0>; rel=prev", "</p?offset=6>; rel=next"], "/p?offset=6"],
  ] as const)("%j -> %s", (header, next) => {
    expect(nextLink(header as string | string[])).toBe(next);
  });

  it.each([undefined, "", '</p?offset=0>; rel="prev"', '</p?offset=0>; title="rel=next"'])("%j has no next", (header) => {
    expect(nextLink(header)).toBeUndefined();
  });
});
