// The value conversions the lifecycle relies on, and how settings are read from stack config.
import { describe, expect, it } from "vitest";
import { families } from "pulumi-audience/sdk/contract";
import { credentialsFor, DEFAULT_MAX_RETRIES, readSettings } from "../../provider/runtime/lifecycle/settings.ts";
import { camelPath, canonical, keepSecrets, keepSignedUrls, pathsOverlap, project, unknownPaths, UNKNOWN } from "../../provider/runtime/lifecycle/shape.ts";

describe("camelPath", () => {
  it("renames fields but not map keys or operators", () => {
    expect(camelPath(families.scopes.create, "population.cohort_ids[0]")).toBe("population.cohortIds[0]");
    expect(camelPath(families.scopes.create, "payload.location.max_distance")).toBe("payload.location.maxDistance");
    expect(camelPath(families.datasets.create, "identity_sets.web_orders.email")).toBe("identitySets.web_orders.email");
    expect(camelPath(families.cohorts.create, "stream_conditions[1]._gte")).toBe("streamConditions[1]._gte");
  });
});

describe("unknowns", () => {
  it("finds unknown values and the rules they touch", () => {
    expect(unknownPaths({ a: { b: [1, UNKNOWN] }, c: UNKNOWN })).toEqual(["a.b[1]", "c"]);
    expect(pathsOverlap("a.b[1]", "a.b")).toBe(true);
    expect(pathsOverlap("a.b", "a.b[1]")).toBe(true);
    expect(pathsOverlap("a.bc", "a.b")).toBe(false);
  });
});

describe("canonical", () => {
  it("applies defaults, drops nulls and ignores members the create shape does not have", () => {
    const declared = { name: "S", population: { cohort_ids: ["11111111-1111-4111-8111-111111111111"] }, payload: { location: { max_distance: 5 } }, preview: true };
    const answered = { ...declared, id: "x", status: "ready", payload: { location: { max_distance: 5, min_distance: null, selection: "nearest", distance_output_units: "meters" } } };
    expect(canonical(families.scopes.create, answered)).toEqual(canonical(families.scopes.create, declared));
  });

  it("projects a lenient answer onto the create shape, choosing the matching union option", () => {
    const answer = { type: "postgres", table_name: "t", server_note: "x" };
    expect(project(families.targets.create, { name: "T", options: answer, managed: false })).toEqual({ name: "T", options: { type: "postgres", table_name: "t" } });
  });
});

describe("keepSecrets", () => {
  it("puts the declared value where the service answers <secret>", () => {
    expect(keepSecrets({ options: { password: "<secret>", user: "u" } }, { options: { password: "pw" } })).toEqual({ options: { password: "pw", user: "u" } });
    expect(keepSecrets({ apiKey: "<secret>" }, {})).toEqual({ apiKey: "<secret>" });
  });
});

describe("settings", () => {
  const config = (values: Record<string, unknown>) => (key: string) => values[key];

  it("reads the default account from stack config before the environment", () => {
    const settings = readSettings(config({ "audience:apiKey": "k1" }), { AUDIENCE_API_KEY: "k2", AUDIENCE_BASE_URL: "http://env" });
    expect(credentialsFor(settings)).toEqual({ apiKey: "k1", baseUrl: "http://env" });
  });

  it("reads named accounts given as JSON text or as an object", () => {
    const accounts = { north: { apiKey: "n", baseUrl: "http://n" } };
    expect(credentialsFor(readSettings(config({ "audience:accounts": JSON.stringify(accounts) }), {}), "north")).toEqual(accounts.north);
    expect(credentialsFor(readSettings(config({ "audience:accounts": accounts }), {}), "north")).toEqual(accounts.north);
  });

  it("says which config to set", () => {
    expect(() => credentialsFor(readSettings(config({}), {}))).toThrow(/audience:apiKey.*AUDIENCE_API_KEY/);
    expect(() => credentialsFor(readSettings(config({ "audience:accounts": { north: { apiKey: "n" } } }), {}), "north")).toThrow(/^audience:accounts\.north\.baseUrl is not set$/);
    expect(() => credentialsFor(readSettings(config({ "audience:accounts": { north: {} } }), {}), "south")).toThrow(/south.*defined: north/);
    expect(() => credentialsFor(readSettings(config({}), {}), "north")).toThrow(/^account: names account "north" but audience:accounts is not set$/);
    // An explicit provider's resources name entries of its own accounts, which the message names.
    const explicit = { ...readSettings(config({}), {}), accountsGiven: 'accounts of provider "north-provider"' };
    expect(() => credentialsFor(explicit, "north")).toThrow(/^account: names account "north" but accounts of provider "north-provider" is not set$/);
    expect(() => readSettings(config({ "audience:accounts": "{not json" }), {})).toThrow(/audience:accounts must be a map/);
  });

  it("reads maxRetries from stack config before the environment, 10 when neither gives it", () => {
    expect(readSettings(config({}), {}).maxRetries).toBe(DEFAULT_MAX_RETRIES);
    expect(DEFAULT_MAX_RETRIES).toBe(10);
    expect(readSettings(config({}), { AUDIENCE_MAX_RETRIES: "2" }).maxRetries).toBe(2);
    expect(readSettings(config({ "audience:maxRetries": "0" }), { AUDIENCE_MAX_RETRIES: "2" }).maxRetries).toBe(0);
    expect(readSettings(config({ "audience:maxRetries": 7 }), {}).maxRetries).toBe(7);
  });

  it("refuses a maxRetries that is not a whole number from 0 to 50, naming where it came from", () => {
    for (const bad of ["-1", "2.5", "many", "51", 3.5]) {
      expect(() => readSettings(config({ "audience:maxRetries": bad }), {})).toThrow(/^audience:maxRetries must be a whole number from 0 to 50 .*got/);
    }
    expect(() => readSettings(config({}), { AUDIENCE_MAX_RETRIES: "lots" })).toThrow(/^AUDIENCE_MAX_RETRIES must be a whole number from 0 to 50/);
  });
});

describe("keepSignedUrls", () => {
  const now = Date.parse("2026-11-22T00:00:00Z");
  const url = (expires: number, signature: string) => `https://svc.example/v1/targets/t/download.csv?expires=${expires}&signature=${signature}`;
  it("keeps a recorded signed URL valid for ten more minutes, takes a new one otherwise", () => {
    const inAYear = now / 1000 + 365 * 86_400;
    expect(keepSignedUrls({ outputUrl: url(inAYear + 60, "new") }, { outputUrl: url(inAYear, "old") }, now)).toEqual({ outputUrl: url(inAYear, "old") });
    const inFiveMinutes = now / 1000 + 300;
    expect(keepSignedUrls({ outputUrl: url(inAYear, "new") }, { outputUrl: url(inFiveMinutes, "old") }, now)).toEqual({ outputUrl: url(inAYear, "new") });
    expect(keepSignedUrls({ outputUrl: "https://svc.example/other.csv?expires=1&signature=x" }, { outputUrl: url(inAYear, "old") }, now))
      .toEqual({ outputUrl: "https://svc.example/other.csv?expires=1&signature=x" });
  });
});
