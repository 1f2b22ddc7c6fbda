// What the generic lifecycle promises beyond a plain create/update/delete, in the lifecycle the hosts wire, called in process:
// check paths and unknowns, replacements, builds awaited or failed (kept in state), adoption, archive, accounts.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emulatorControl } from "pulumi-audience/emulator";
import { HostError, startWorld, type Props, type World } from "./harness.ts";

const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

let world: World;
let leads: string;
let second: { id: string; apiKey: string };

beforeAll(async () => {
  world = await startWorld({
    builds: { scopes: "manual" },
    async config({ url, proxyUrl, apiKey }) {
      const account = await emulatorControl(url).createAccount({ name: "Second brand" });
      second = { id: account.id, apiKey: account.api_key };
      // `again` and `home` are the second and the default account under other names, at the emulator's own URL.
      const accounts = { second: { apiKey: account.api_key, baseUrl: proxyUrl }, again: { apiKey: account.api_key, baseUrl: url }, home: { apiKey, baseUrl: url } };
      return { "audience:accounts": JSON.stringify(accounts) };
    },
  });
  const cohorts = (await world.api("GET", "/cohorts")) as { id: string; name: string }[];
  leads = cohorts.find((c) => c.name === "Leads")!.id;
});
afterAll(async () => world?.close());

const scope = (extra: Props = {}) =>
  world.inputs("scopes", { name: "Discounting", population: { cohortIds: [leads] }, payload: { cohortIds: [leads] }, preview: true, ...extra });

async function advance(id: string, to: "ready" | "error", error?: string) {
  await world.control.advanceBuilds({ id, to, ...(error ? { error } : {}) });
}

async function pendingScopes(): Promise<string[]> {
  return (await world.control.pendingBuilds()).filter((p) => p.resource_type === "scopes").map((p) => p.id);
}

/** Runs `step` and advances the scope build it starts as soon as the emulator has it pending. */
async function withBuild<T>(start: () => Promise<T>, to: "ready" | "error", error?: string): Promise<T> {
  const earlier = new Set(await pendingScopes());
  const step = start();
  for (let i = 0; i < 100; i++) {
    const found = (await pendingScopes()).find((id) => !earlier.has(id));
    if (found) {
      await advance(found, to, error);
      break;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return step;
}

describe("check", () => {
  it("names each failing member by its camelCase path", async () => {
    const { failures } = await world.host.check({}, world.inputs("scopes", { name: "", population: { cohortIds: ["not-a-uuid"] }, payload: {} }));
    const properties = failures.map((f) => f.property);
    expect(properties).toEqual(expect.arrayContaining(["name", "population.cohortIds[0]", "preview"]));
    expect(failures.find((f) => f.property === "population.cohortIds[0]")?.reason).toMatch(/uuid/);
  });

  it("says each path once, and names the member a mistyped one most likely meant", async () => {
    const { failures } = await world.host.check({}, world.inputs("cohorts", { name: "Big spenders", streamName: "transactions", streamCondition: [{ property: "amount", _gte: 100 }] }));
    expect(failures).toEqual([{ property: "streamCondition", reason: "is not a recognized field; did you mean `streamConditions`?" }]);
  });

  it("names the members a rule's message mentions as the program writes them", async () => {
    const { failures } = await world.host.check({}, world.inputs("cohorts", { name: "Both", locationConditions: [], placeConditions: [], minCount: 5, maxCount: 2 }));
    expect(failures).toEqual([
      { property: "placeConditions", reason: "cannot be set together with locationConditions (placeConditions is deprecated: use locationConditions)" },
      { property: "minCount", reason: "must not exceed maxCount" },
    ]);
  });

  it("names nested members a rule's message mentions as the program writes them too", async () => {
    const { failures } = await world.host.check({}, world.inputs("cohorts", { name: "Recent", streamName: "transactions", recency: { occurrence: "last", minDays: 10, maxDays: 2 } }));
    expect(failures).toEqual([{ property: "recency.minDays", reason: "must not exceed maxDays" }]);
  });

  it("a member a nested object does not take: the nearest it takes, else every one it takes", async () => {
    const target = (representation: Props) => world.inputs("targets", { name: "T", scopeId: leads, representation, options: { type: "hosted_csv" } });
    expect((await world.host.check({}, target({ mode: "identified", bogus: 1 }))).failures).toEqual([
      { property: "representation.bogus", reason: "is not a recognized field; it takes aggregate, imputePayload, includeGeometry, mode, outputMultipleIdentities, reference, referenceDatasetId, transformPreset" },
    ]);
    expect((await world.host.check({}, target({ mode: "identified", outputMultipleIdentity: true }))).failures).toEqual([
      { property: "representation.outputMultipleIdentity", reason: "is not a recognized field; did you mean `outputMultipleIdentities`?" },
    ]);
  });

  it("a member of another kind of options: what the kind written takes, never the name written", async () => {
    const target = (options: Props) => world.inputs("targets", { name: "T", scopeId: leads, representation: { mode: "identified" }, options });
    const postgres = { type: "postgres", tableName: "audience" };
    const [dayPartitioned] = (await world.host.check({}, target({ ...postgres, dayPartitioned: true }))).failures;
    expect(dayPartitioned?.property).toBe("options.dayPartitioned");
    expect(dayPartitioned?.reason).toMatch(/^is not a recognized field; it takes [a-zA-Z, ]+$/);
    expect(dayPartitioned?.reason).toContain("tableName");
    expect(dayPartitioned?.reason).not.toMatch(/dayPartitioned|objectKey|gzip/);
    expect((await world.host.check({}, target({ ...postgres, tabelName: "x" }))).failures).toEqual([
      { property: "options.tabelName", reason: "is not a recognized field; did you mean `tableName`?" },
    ]);
  });

  it("one mistake, one message: a stray operator, an empty list of cohorts, a preview that is no boolean", async () => {
    const cohort = await world.host.check({}, world.inputs("cohorts", { name: "Stray", streamName: "transactions", streamConditions: [{ property: "amount", _greater: 1 }] }));
    expect(cohort.failures.map((f) => [f.property, f.reason.split(";")[0]])).toEqual([["streamConditions[0]._greater", "is not allowed on a stream condition"]]);
    const empty = await world.host.check({}, scope({ population: { cohortIds: [] } }));
    expect(empty.failures).toEqual([{ property: "population.cohortIds", reason: "must name at least one cohort" }]);
    const preview = await world.host.check({}, scope({ preview: "yes" }));
    expect(preview.failures).toEqual([{ property: "preview", reason: "must be true or false" }]);
  });

  it("refuses a numeric comparison of a stream's datetime, a date in every stream, before any request", async () => {
    const mark = await world.mark();
    const { failures } = await world.host.check({}, world.inputs("cohorts", { name: "Recent", streamName: "transactions", streamConditions: [{ property: "datetime", _gt: 5 }] }));
    expect(failures).toEqual([{ property: "streamConditions[0]._gt", reason: "is not allowed on date property datetime; use _on_or_before / _on_or_after (YYYY-MM-DD)" }]);
    expect((await world.serviceCalls(mark)).filter((c) => c.path !== "/accounts/current")).toEqual([]);
  });

  it("refuses an operator its stream's property cannot take, as the account types it, and asks nothing of recorded conditions", async () => {
    await world.api("POST", "/streams", { name: "orders", properties: { amount: { type: "double" }, placed: { type: "date" } } });
    const cohort = (streamConditions: Props[]) => world.inputs("cohorts", { name: "Big spenders", streamName: "orders", streamConditions });
    const wrong = [{ property: "amount", _on_or_after: "2026-01-01" }, { property: "placed", _gte: 3 }, { property: "amount", _gte: 100 }];
    const { failures } = await world.host.check({}, cohort(wrong));
    expect(failures).toEqual([
      { property: "streamConditions[0]._on_or_after", reason: "is only allowed on date properties; amount is of type double (use _eq, _in, _gt, ... instead)" },
      { property: "streamConditions[1]._gte", reason: "is not allowed on date property placed; use _on_or_before / _on_or_after (YYYY-MM-DD)" },
    ]);
    // The service judges only new or changed conditions: a plan that keeps the recorded ones asks nothing.
    const right = await world.host.check({}, cohort([{ property: "amount", _gte: 100 }]));
    expect(right.failures).toEqual([]);
    const mark = await world.mark();
    expect((await world.host.check(right.inputs, { ...cohort([{ property: "amount", _gte: 100 }]), name: "Renamed" })).failures).toEqual([]);
    expect(await world.serviceCalls(mark)).toEqual([]);
    // A property no declaration types (a dataset may create any) is the service's to judge.
    expect((await world.host.check({}, cohort([{ property: "basket", _on_or_after: "2026-01-01" }]))).failures).toEqual([]);
  });

  it("refuses ids the account does not hold, asking once per family for the checks of one moment, and never for ids already recorded", async () => {
    const [forecast] = (await world.api("GET", "/forecasts")) as { id: string }[];
    const nowhere = "00000000-0000-4000-8000-000000000000";
    const mark = await world.mark();
    const [wrongKind, missing, fine] = await Promise.all([
      world.host.check({}, scope({ population: { cohortIds: [forecast!.id] } })),
      world.host.check({}, scope({ payload: { cohortIds: [leads, nowhere] } })),
      world.host.check({}, scope()),
    ]);
    // The reason names the member, not the id, which the program may have passed as a secret.
    const unheld = "names a Cohort the account does not have: an id of another kind of resource or of another account, or of one deleted outside the program";
    expect(wrongKind.failures).toEqual([{ property: "population.cohortIds[0]", reason: unheld }]);
    expect(missing.failures).toEqual([{ property: "payload.cohortIds[1]", reason: unheld }]);
    expect(fine.failures).toEqual([]);
    expect((await world.serviceCalls(mark)).map((c) => `${c.method} ${c.path}`).filter((c) => c !== "GET /accounts/current")).toEqual(["GET /cohorts"]);
    // Recorded already (a no-op, or a change elsewhere): nothing is asked.
    const again = await world.mark();
    expect((await world.host.check(fine.inputs, scope({ name: "Renamed" }))).failures).toEqual([]);
    expect(await world.serviceCalls(again)).toEqual([]);
  });

  it("accepts values unknown during preview, and still checks the rest", async () => {
    const preview = await world.host.check({}, world.inputs("targets", { name: "Hosted", scopeId: UNKNOWN, representation: { mode: "identified" }, options: { type: "hosted_csv" } }));
    expect(preview.failures).toEqual([]);
    // The known members as they will be recorded, defaults filled: a plan compares them with the recorded ones.
    expect(preview.inputs).toMatchObject({ scopeId: UNKNOWN, representation: { mode: "identified", imputePayload: [], outputMultipleIdentities: false } });
    const wholeList = await world.host.check({}, scope({ population: { cohortIds: UNKNOWN } }));
    expect(wholeList.failures).toEqual([]);
    const partly = await world.host.check({}, scope({ population: { cohortIds: [UNKNOWN] }, preview: "yes" }));
    expect(partly.failures.map((f) => f.property)).toEqual(["preview"]);
  });

  it("records inputs with the service's defaults applied, whether the program wrote them or not", async () => {
    const target = (representation: Props) => world.inputs("targets", { name: "T", scopeId: leads, representation, options: { type: "hosted_csv" }, account: "second" });
    const implicit = await world.host.check({}, target({ mode: "identified" }));
    const explicit = await world.host.check({}, target({ mode: "identified", outputMultipleIdentities: false }));
    expect(implicit.inputs).toEqual(explicit.inputs);
    expect(implicit.inputs).toMatchObject({ representation: { mode: "identified", imputePayload: [], outputMultipleIdentities: false }, account: "second", __kind: "targets" });
  });

  it("refuses an account that audience:accounts does not define, and bad controls", async () => {
    const { failures } = await world.host.check({}, scope({ account: "third", waitFor: "built", deletionMode: "shred" }));
    expect(failures).toEqual(expect.arrayContaining([
      { property: "account", reason: expect.stringMatching(/third.*audience:accounts.*second/) },
      { property: "waitFor", reason: expect.stringMatching(/ready/) },
      { property: "deletionMode", reason: expect.stringMatching(/archive/) },
    ]));
  });
});

describe("diff", () => {
  it("replaces on a create-only member, updates in place otherwise; another name for the same account never replaces", async () => {
    const target = (options: Props, extra: Props = {}) =>
      world.inputs("targets", { name: "Hosted", scopeId: leads, representation: { mode: "identified" }, options, ...extra });
    const recorded = { ...target({ type: "hosted_csv" }), representation: { mode: "identified", imputePayload: [], outputMultipleIdentities: false }, status: "ready" };
    const mark = await world.mark();
    expect(await world.host.diff("t", recorded, target({ type: "lookup_api" }))).toMatchObject({ changes: "some", replaces: ["options"] });
    expect(await world.host.diff("t", recorded, target({ type: "hosted_csv", gzip: true }))).toMatchObject({ changes: "some", replaces: [] });
    expect(await world.host.diff("t", recorded, target({ type: "hosted_csv" }, { account: "home" }))).toMatchObject({ changes: "some", replaces: [] });
    expect(await world.host.diff("t", recorded, target({ type: "hosted_csv" }, { account: "second" }))).toMatchObject({ changes: "some", replaces: ["account"] });
    // Key order and defaults the service fills in make no difference.
    expect(await world.host.diff("t", recorded, { ...target({ type: "hosted_csv" }), representation: { outputMultipleIdentities: false, mode: "identified" } })).toMatchObject({ changes: "none" });
    // Only which account each key reaches is asked, once per key.
    expect((await world.serviceCalls(mark)).map((c) => `${c.method} ${c.path}`).filter((c) => c !== "GET /accounts/current")).toEqual([]);
  });
});

describe("replaceOnChanges on the dynamic face", () => {
  it("replaces on a change under the paths the class recorded, updates otherwise; kept by check, never sent or recorded", async () => {
    const cohort = (extra: Props, replaceOnChanges?: string[]) => world.inputs("cohorts", {
      name: "Replaced on change", streamName: "transactions", streamConditions: [{ property: "amount", _gte: 5 }], minCount: 1, ...extra,
      ...(replaceOnChanges ? { __replaceOnChanges: replaceOnChanges } : {}),
    });
    const checked = await world.host.check({}, cohort({}, ["minCount", "streamConditions[*]._gte"]));
    expect(checked.failures).toEqual([]);
    expect(checked.inputs["__replaceOnChanges"]).toEqual(["minCount", "streamConditions[*]._gte"]);
    // The emulator refuses a body with a member it does not know: the create going through shows it was not sent.
    const created = await world.host.create(checked.inputs);
    expect(created.properties).not.toHaveProperty("__replaceOnChanges");
    const read = await world.host.read(created.id, created.properties);
    expect(read.inputs).not.toHaveProperty("__replaceOnChanges");
    const paths = ["minCount", "streamConditions[*]._gte"];
    const mark = await world.mark();
    expect(await world.host.diff(created.id, created.properties, cohort({}, paths))).toMatchObject({ changes: "none" });
    expect(await world.host.diff(created.id, created.properties, cohort({ minCount: 2 }, paths))).toMatchObject({ changes: "some", replaces: ["minCount"] });
    expect(await world.host.diff(created.id, created.properties, cohort({ streamConditions: [{ property: "amount", _gte: 6 }] }, paths)))
      .toMatchObject({ changes: "some", replaces: ["streamConditions"] });
    expect(await world.host.diff(created.id, created.properties, cohort({ streamConditions: [{ property: "total", _gte: 5 }] }, paths))).toMatchObject({ changes: "some", replaces: [] });
    expect(await world.host.diff(created.id, created.properties, cohort({ name: "Renamed" }, paths))).toMatchObject({ changes: "some", replaces: [] });
    expect(await world.host.diff(created.id, created.properties, cohort({ name: "Renamed" }, ["*"]))).toMatchObject({ changes: "some", replaces: ["name"] });
    expect(await world.host.diff(created.id, created.properties, cohort({ minCount: 2 }))).toMatchObject({ changes: "some", replaces: [] });
    expect(await world.serviceCalls(mark)).toEqual([]);
    await world.host.delete(created.id, created.properties);
  });
});

describe("an update moving a union to another variant", () => {
  it("switches a target's limit method in one PATCH, clearing the members of the method left", async () => {
    const outcome = ((await world.api("POST", "/outcomes", { name: "Ranks rows", attainment_cohort_id: leads })) as { id: string }).id;
    const pipeline = (await world.host.create((await world.host.check({}, scope({ name: "To limit" }))).inputs)).id;
    const target = (limit: Props) => world.inputs("targets", { name: "Limited", scopeId: pipeline, representation: { mode: "identified" }, options: { type: "hosted_csv" }, limit });
    const byCount = target({ method: "row_count", threshold: 10 });
    const created = await world.host.create((await world.host.check({}, byCount)).inputs);
    const byPercentile = (await world.host.check(byCount, target({ method: "percentile", outcomeId: outcome, percentileMin: 0, percentileMax: 50 }))).inputs;
    const mark = await world.mark();
    const updated = await world.host.update(created.id, created.properties, byPercentile);
    expect(await world.serviceCalls(mark)).toEqual([expect.objectContaining({ method: "PATCH" })]);
    expect(updated.properties["limit"]).toEqual({ method: "percentile", outcomeId: outcome, percentileMin: 0, percentileMax: 50 });
    const stored = (await world.api("GET", `/targets/${created.id}`)) as { limit: Props };
    expect(stored.limit).not.toHaveProperty("threshold");
    expect(await world.host.diff(created.id, updated.properties, byPercentile)).toMatchObject({ changes: "none" });
  });
});

describe("the record of where credentials came from", () => {
  it("is kept by check, recorded by create and given back by read, never sent, and never a change", async () => {
    const sources = { "options.password": "plain" };
    const connection = (extra: Props = {}) => world.inputs("connections", {
      name: "Warehouse", options: { type: "postgres", host: "db", port: 5432, database: "d", schema: "s", user: "u", password: "hunter2" }, ...extra,
    });
    const checked = await world.host.check({}, connection({ credentialSources: sources }));
    expect(checked.failures).toEqual([]);
    expect(checked.inputs["credentialSources"]).toEqual(sources);
    // The emulator refuses a body with a member it does not know: the create going through shows it was not sent.
    const created = await world.host.create(checked.inputs);
    expect(created.properties["credentialSources"]).toEqual(sources);
    const read = await world.host.read(created.id, created.properties);
    expect(read.inputs["credentialSources"]).toEqual(sources);
    expect(await world.host.diff(created.id, created.properties, { ...checked.inputs, credentialSources: { "options.password": "secret" } })).toMatchObject({ changes: "none" });
    await world.host.delete(created.id, created.properties);
  });
});

describe("builds", () => {
  it("waits for a build with waitFor: ready", async () => {
    const created = await withBuild(() => world.host.create(scope({ waitFor: "ready", waitTimeoutSeconds: 30 })), "ready");
    expect(created.properties.status).toBe("ready");
  });

  it("fails the step with the build error while keeping the resource in state", async () => {
    const error = (await withBuild(() => world.host.create(scope({ name: "Broken", waitFor: "ready" })), "error", "cohort has no members").catch((e: unknown) => e)) as HostError;
    expect(error).toBeInstanceOf(HostError);
    expect(error.message).toMatch(/failed to build: cohort has no members; it stays in the stack, and the next up builds it again/);
    expect(error.initFailed?.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(error.initFailed?.reasons.join()).toMatch(/cohort has no members/);
    // Kept with everything later steps need: the provider shim, the family, the service's answer.
    expect(error.initFailed?.properties).toMatchObject({ __provider: world.shim("scopes"), __kind: "scopes", status: "error", statusError: "cohort has no members", name: "Broken" });
    const read = await world.host.read(error.initFailed!.id, error.initFailed!.properties);
    expect(read.id).toBe(error.initFailed!.id);
    // The next up retries the unfinished resource: with nothing to change, it runs the build again (force_update)
    // and waits; a build that fails again fails the step again instead of reporting success.
    const mark = await world.mark();
    const retried = (await withBuild(() => world.host.update(error.initFailed!.id, error.initFailed!.properties, scope({ name: "Broken", waitFor: "ready" })), "error", "cohort has no members").catch((e: unknown) => e)) as HostError;
    expect(retried).toBeInstanceOf(HostError);
    expect(retried.message).toMatch(/cohort has no members/);
    expect(retried.initFailed?.id).toBe(error.initFailed!.id);
    expect((await world.serviceCalls(mark)).filter((c) => c.method !== "GET").map((c) => `${c.method} ${c.path}`)).toEqual([`POST /scopes/${error.initFailed!.id}/force_update`]);
    // Once the build can pass, the retry passes.
    const passed = await withBuild(() => world.host.update(error.initFailed!.id, retried.initFailed!.properties, scope({ name: "Broken", waitFor: "ready" })), "ready");
    expect(passed.properties).toMatchObject({ status: "ready" });
  });

  it("gives up at the deadline, keeping the resource", async () => {
    const error = (await world.host.create(scope({ name: "Slow", waitFor: "ready", waitTimeoutSeconds: 0.5 })).catch((e: unknown) => e)) as HostError;
    expect(error.message).toMatch(/still new after 0.5s \(waitTimeoutSeconds\); it stays in the stack, and the next up waits for its build again$/);
    expect(error.initFailed?.properties.status).toBe("new");
  });

  it("waits again after an update that rebuilds (enabling a pipeline)", async () => {
    const created = await withBuild(() => world.host.create(scope({ name: "To enable", waitFor: "ready" })), "ready");
    const before = world.proxy.requests.length;
    const updated = await withBuild(() => world.host.update(created.id, created.properties, scope({ name: "To enable", waitFor: "ready", preview: false })), "ready");
    expect(world.proxy.requests.slice(before).filter((r) => r.method !== "GET").map((r) => [r.method, r.body])).toEqual([["PATCH", { preview: false }]]);
    expect(updated.properties).toMatchObject({ preview: false, status: "ready" });
  });

  it("does not wait without waitFor", async () => {
    const created = await world.host.create(scope({ name: "Unwaited" }));
    expect(created.properties.status).toBe("new");
  });
});

describe("adopt", () => {
  it("takes over an existing resource: GET, one merge patch to the declared inputs, no POST", async () => {
    const existing = (await world.api("POST", "/cohorts", { name: "Lapsed", stream_name: "transactions", stream_conditions: [{ property: "amount", _lt: 5 }] })) as { id: string };
    const mark = await world.mark();
    const before = world.proxy.requests.length;
    const adopted = await world.host.create(world.inputs("cohorts", { name: "Lapsed customers", streamName: "transactions", streamConditions: [{ property: "amount", _lt: 5 }], adoptId: existing.id }));
    expect(adopted.id).toBe(existing.id);
    expect((await world.serviceCalls(mark)).map((c) => c.method)).toEqual(["GET", "PATCH"]);
    expect(world.proxy.requests.slice(before).at(-1)?.body).toEqual({ name: "Lapsed customers" });
    expect(adopted.properties).toMatchObject({ name: "Lapsed customers", adoptId: existing.id });
  });

  it("sends a declared credential the service answers as <secret>, as a create would", async () => {
    const options = { type: "postgres", host: "db.example.com", port: 5432, database: "shop", schema: "public", user: "loader" };
    const existing = (await world.api("POST", "/connections", { name: "Warehouse", options: { ...options, password: "old-pw-1" } })) as { id: string };
    const before = world.proxy.requests.length;
    const adopted = await world.host.create(world.inputs("connections", { name: "Warehouse", options: { ...options, password: "rotated-pw-2" }, adoptId: existing.id }));
    expect(adopted.id).toBe(existing.id);
    expect(world.proxy.requests.slice(before).map((r) => [r.method, r.body])).toEqual([["GET", undefined], ["PATCH", { options: { password: "rotated-pw-2" } }]]);
  });

  it("refuses in check an adoptId the service says is another account's, as the create would", async () => {
    const other = await world.control.createAccount({ name: "Another team" });
    const response = await fetch(`${world.emulator.url}/cohorts`, {
      method: "POST",
      headers: { authorization: `Bearer ${other.api_key}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Theirs", stream_name: "transactions" }),
    });
    const theirs = (await response.json()) as { id: string };
    const checked = await world.host.check({}, world.inputs("cohorts", { name: "Theirs", streamName: "transactions", adoptId: theirs.id }));
    expect(checked.failures).toEqual([{ property: "adoptId", reason: expect.stringMatching(/^GET \/cohorts\/[0-9a-f-]+: 403 FORBIDDEN: .*another account/) }]);
  });

  it("refuses in check to adopt what the service manages, which refuses every change and delete; forgets one adopted before", async () => {
    const classic = ((await world.api("GET", "/cohorts")) as { id: string; name: string; managed?: boolean }[]).find((c) => c.managed === true)!;
    const checked = await world.host.check({}, world.inputs("cohorts", { name: classic.name, adoptId: classic.id }));
    expect(checked.failures).toEqual([{ property: "adoptId", reason: `Cohort ${classic.id} is managed by the service and read-only: it refuses every change and delete, so a program cannot adopt it; to use it, look it up instead: getCohortOutput({ id: "${classic.id}" })` }]);
    // A stack that adopted it before (or imported it): a change fails the plan, as the service would refuse it.
    const recorded = { ...world.inputs("cohorts", { name: classic.name }), managed: true };
    await expect(world.host.diff(classic.id, recorded, world.inputs("cohorts", { name: "Renamed" }))).rejects.toThrow(`Cohort ${classic.id} is managed by the service and read-only: it refuses every change (name)`);
    expect(await world.host.diff(classic.id, recorded, world.inputs("cohorts", { name: classic.name }))).toMatchObject({ changes: "none" });
    // And destroy forgets it instead of failing on the service's 403.
    const mark = await world.mark();
    await world.host.delete(classic.id, { ...world.inputs("cohorts", { name: classic.name }), managed: true });
    expect(await world.serviceCalls(mark)).toEqual([]);
    expect(world.host.warnings()).toContain(`Cohort ${classic.id} stays in the account: the service manages it (read-only), so it is only removed from the stack`);
  });

  it("changing adoptId replaces", async () => {
    const inputs = world.inputs("cohorts", { name: "A", adoptId: "11111111-1111-4111-8111-111111111111" });
    expect(await world.host.diff("x", inputs, { ...inputs, adoptId: "22222222-2222-4222-8222-222222222222" })).toMatchObject({ replaces: ["adoptId"] });
  });
});

describe("delete", () => {
  it("archives instead with deletionMode: archive, cascading as told", async () => {
    const cohort = await world.host.create(world.inputs("cohorts", { name: "Seasonal", deletionMode: "archive" }));
    const outcome = (await world.api("POST", "/outcomes", { name: "Seasonal buyers", attainment_cohort_id: cohort.id })) as { id: string };
    // The service's refusal names the members as the program writes them.
    const refused = (await world.host.delete(cohort.id, cohort.properties).catch((e: unknown) => e)) as Error;
    expect(refused.message).toMatch(/409 CONFLICT: .*cascadeTo \(or set cascadeToAll\)/);
    expect(refused.message).not.toMatch(/cascade_to/);
    const mark = await world.mark();
    await world.host.delete(cohort.id, { ...cohort.properties, cascadeTo: [outcome.id] });
    expect((await world.serviceCalls(mark)).map((c) => `${c.method} ${c.path.replace(/\/v1/, "")}`)).toEqual([`POST /cohorts/${cohort.id}/archive`]);
    expect(await world.api("GET", `/cohorts/${cohort.id}`)).toMatchObject({ archived_at: expect.any(String) });
    expect(await world.api("GET", `/outcomes/${outcome.id}`)).toMatchObject({ archived_at: expect.any(String) });
  });

  it("waits for what depends on the resource to go: Pulumi deletes in parallel what it does not know depends on it", async () => {
    const made = await world.host.create(scope());
    const target = (await world.api("POST", "/targets", { name: "Pasted id", scope_id: made.id, representation: { mode: "identified" }, options: { type: "hosted_csv" } })) as { id: string };
    const deleted = world.host.delete(made.id, made.properties);
    await new Promise((r) => setTimeout(r, 600));
    await world.api("DELETE", `/targets/${target.id}`);
    await expect(deleted).resolves.toBeUndefined();
    expect((await world.host.read(made.id, made.properties)).id).toBe("");
  });

  it("an update of a resource deleted outside the program says so, and what to run", async () => {
    const cohort = await world.host.create(world.inputs("cohorts", { name: "Deleted by hand" }));
    await world.api("DELETE", `/cohorts/${cohort.id}`);
    const error = await world.host.update(cohort.id, cohort.properties, world.inputs("cohorts", { name: "Deleted by hand", minCount: 4 })).catch((e: unknown) => e);
    expect((error as Error).message).toContain(`Cohort ${cohort.id} is gone from the account (deleted outside the program): refresh the stack (\`pulumi refresh\`, or \`audience run refresh\`) to record that, and the next up creates it again`);
  });

  it("treats a resource already gone as deleted", async () => {
    const cohort = await world.host.create(world.inputs("cohorts", { name: "Short-lived" }));
    await world.api("DELETE", `/cohorts/${cohort.id}`);
    await expect(world.host.delete(cohort.id, cohort.properties)).resolves.toBeUndefined();
    expect((await world.host.read(cohort.id, cohort.properties)).id).toBe("");
  });
});

describe("accounts", () => {
  it("says why a recorded resource its key cannot reach is refused, and the ways on (a `pulumi state move` from another account's stack)", async () => {
    const created = await world.host.create(world.inputs("cohorts", { name: "Moved between stacks", account: "second" }));
    // As recorded by a stack whose key reaches the default account.
    const { account: _account, ...moved } = created.properties;
    const advice = "the key of the default account (audience:apiKey) has no access to this Cohort, which is another account's (made with another key: the stack's key changed since, "
      + "or `pulumi state move` brought it from a stack of another account); give the stack that account's key, or `pulumi state delete` it here and adopt it (adoptId) in a stack of that account";
    for (const step of [() => world.host.read(created.id, moved), () => world.host.update(created.id, moved, { ...moved, name: "Renamed" }), () => world.host.delete(created.id, moved)]) {
      const error = (await step().catch((e: unknown) => e)) as Error;
      expect(error.message).toMatch(/403 FORBIDDEN: The cohort .* belongs to another account: /);
      expect(error.message).toContain(advice);
    }
  });

  it("manages a resource in the account an `account` input names", async () => {
    const created = await world.host.create(world.inputs("cohorts", { name: "Second brand leads", account: "second" }));
    const inSecond = await fetch(`${world.emulator.url}/cohorts/${created.id}`, { headers: { authorization: `Bearer ${second.apiKey}` } });
    expect(inSecond.status).toBe(200);
    await expect(world.api("GET", `/cohorts/${created.id}`)).rejects.toThrow(/403 .*another account/);
    // Another name for the same account is recorded without a request to the resource.
    const mark = await world.mark();
    const renamed = world.inputs("cohorts", { name: "Second brand leads", account: "again" });
    expect(await world.host.diff(created.id, created.properties, renamed)).toMatchObject({ changes: "some", replaces: [] });
    const moved = await world.host.update(created.id, created.properties, renamed);
    expect((await world.serviceCalls(mark)).filter((c) => c.path.startsWith("/cohorts"))).toEqual([]);
    expect(moved.properties.account).toBe("again");
    // Another account replaces it: the service cannot move a resource.
    expect(await world.host.diff(created.id, moved.properties, world.inputs("cohorts", { name: "Second brand leads" }))).toMatchObject({ changes: "some", replaces: ["account"] });
  });

  it("a sub-account's destroy requests its deletion, and says the service removes it later", async () => {
    const created = await world.host.create(world.inputs("accounts", { name: "Seasonal brand" }));
    await world.host.delete(created.id, created.properties);
    expect(await world.api("GET", `/accounts/${created.id}`)).toMatchObject({ deletion_requested_at: expect.any(String) });
    expect(world.host.warnings()).toContain(`Account ${created.id} is scheduled for deletion: the service removes it after its waiting period`);
  });
});

describe("drift", () => {
  it("refresh reports a change made outside the program, and the next update patches it back", async () => {
    const created = await world.host.create(world.inputs("cohorts", { name: "Loyal" }));
    await world.api("PATCH", `/cohorts/${created.id}`, { name: "Loyal (edited)" });
    const refreshed = await world.host.read(created.id, created.properties);
    expect(refreshed.inputs.name).toBe("Loyal (edited)");
    const news = world.inputs("cohorts", { name: "Loyal" });
    expect((await world.host.diff(created.id, refreshed.properties, news)).changes).toBe("some");
    const before = world.proxy.requests.length;
    await world.host.update(created.id, refreshed.properties, news);
    expect(world.proxy.requests.slice(before).map((r) => [r.method, r.body])).toEqual([["PATCH", { name: "Loyal" }]]);
  });
});

describe("families with their own shapes", () => {
  it("Insights: the account's singleton is created, patched and forgotten on destroy without a request", async () => {
    const created = await world.host.create(world.inputs("insights", { plan: "standard" }));
    expect(created.properties).toMatchObject({ plan: "standard" });
    const read = await world.host.read(created.id, created.properties);
    expect((await world.host.diff(created.id, read.properties, world.inputs("insights", { plan: "standard" }))).changes).toBe("none");
    const before = world.proxy.requests.length;
    await world.host.update(created.id, read.properties, world.inputs("insights", { plan: "premium" }));
    expect(world.proxy.requests.slice(before).map((r) => [r.method, r.path, r.body])).toEqual([["PATCH", "/insights", { plan: "premium" }]]);
    const mark = await world.mark();
    await world.host.delete(created.id, read.properties);
    expect(await world.serviceCalls(mark)).toEqual([]);
    expect(world.host.warnings()).toContain(`Insights ${created.id} stays in the account: the service neither deletes nor archives it, so it is only removed from the stack`);
    // Declared again (an up after that destroy, another stack): the plan says the account's own is taken over, and
    // the up does so instead of creating it twice.
    const checked = await world.host.check({}, world.inputs("insights", { plan: "basic" }));
    expect(checked.failures).toEqual([]);
    expect(world.host.warnings()).toContain("Insights: the account has its own already (one per account); this up takes it over and brings it to the declared inputs, and a stack or program that also declares it changes the same one");
    const again = await world.host.create(checked.inputs);
    expect(again.id).toBe(created.id);
    expect(await world.api("GET", "/insights")).toMatchObject({ plan: "basic" });
  });

  it("ConfigurationAudit: accepted (202) for the current account, read back, never deleted by the service", async () => {
    const created = await world.host.create(world.inputs("audits", {}));
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
    const read = await world.host.read(created.id, created.properties);
    expect(read.id).toBe(created.id);
    const mark = await world.mark();
    await world.host.delete(created.id, read.properties);
    expect(await world.serviceCalls(mark)).toEqual([]);
    expect(world.host.warnings()).toContain(`ConfigurationAudit ${created.id} stays in the account: the service neither deletes nor archives it, so it is only removed from the stack`);
  });

  it("ConfigurationAudit of chosen use cases: read back as declared; other use cases replace it (no PATCH exists)", async () => {
    const first = (await world.api("POST", "/knowledgebase/use_cases", { name: "Churn prevention", description: "Keep customers" })) as { id: string };
    const second = (await world.api("POST", "/knowledgebase/use_cases", { name: "Upsell", description: "Grow baskets" })) as { id: string };
    const inputs = world.inputs("audits", { useCaseIds: [first.id] });
    const created = await world.host.create(inputs);
    const read = await world.host.read(created.id, created.properties);
    expect(read.inputs).toMatchObject({ useCaseIds: [first.id] });
    expect((await world.host.diff(created.id, read.properties, inputs)).changes).toBe("none");
    expect(await world.host.diff(created.id, read.properties, world.inputs("audits", { useCaseIds: [second.id] }))).toMatchObject({ changes: "some", replaces: ["useCaseIds"] });
  });

  it("Outcome in preview: waitFor ready refused in check, since a preview outcome never builds", async () => {
    const cohort = (await world.api("POST", "/cohorts", { name: "Eligible", stream_name: "transactions" })) as { id: string };
    const outcome = (extra: Props) => world.inputs("outcomes", { name: "Preview outcome", attainmentCohortId: cohort.id, waitFor: "ready", ...extra });
    expect((await world.host.check({}, outcome({ preview: true }))).failures).toEqual([
      { property: "waitFor", reason: 'waitFor: "ready" waits for a build, and in preview this Outcome builds nothing until preview is false: set preview: false, or leave waitFor out while it is a preview' },
    ]);
    expect((await world.host.check({}, outcome({ preview: false }))).failures).toEqual([]);
  });

  it("Forecast: the service's own, adopted, then forgotten on destroy without a request (it cannot be archived)", async () => {
    const [seeded] = (await world.api("GET", "/forecasts")) as { id: string; name: string; managed?: boolean }[];
    expect(seeded).toMatchObject({ managed: true });
    const adopted = await world.host.create(world.inputs("forecasts", { name: seeded!.name, adoptId: seeded!.id }));
    expect(adopted.id).toBe(seeded!.id);
    const mark = await world.mark();
    await world.host.delete(adopted.id, adopted.properties);
    expect(await world.serviceCalls(mark)).toEqual([]);
    expect(await world.api("GET", `/forecasts/${seeded!.id}`)).toMatchObject({ id: seeded!.id, archived_at: null });
    expect(world.host.warnings()).toContain(`Forecast ${seeded!.id} stays in the account: the service manages it (read-only), so it is only removed from the stack`);
  });

  it("Forecast imported: the code its inputs describe keeps it, and so does an adoptId naming it; another adoptId replaces", async () => {
    const [seeded] = (await world.api("GET", "/forecasts")) as { id: string; name: string }[];
    // What `pulumi import` records: the resource read by its id alone.
    const imported = await world.host.read(seeded!.id, world.inputs("forecasts", {}));
    const declared = world.inputs("forecasts", { name: seeded!.name });
    const checked = await world.host.check(imported.inputs, declared);
    expect(checked.failures).toEqual([]);
    // Not yet in the state, it still cannot be created.
    expect((await world.host.check({}, declared)).failures).toEqual([{ property: "adoptId", reason: expect.stringMatching(/cannot be created through the API/) }]);
    const mark = await world.mark();
    expect(await world.host.diff(seeded!.id, imported.properties, checked.inputs)).toMatchObject({ changes: "none" });
    const naming = (await world.host.check(imported.inputs, { ...declared, adoptId: seeded!.id })).inputs;
    expect(await world.host.diff(seeded!.id, imported.properties, naming)).toMatchObject({ replaces: [] });
    const updated = await world.host.update(seeded!.id, imported.properties, naming);
    expect(updated.properties).toMatchObject({ name: seeded!.name, adoptId: seeded!.id });
    expect(await world.serviceCalls(mark)).toEqual([]);
    const other = { ...naming, adoptId: "22222222-2222-4222-8222-222222222222" };
    expect(await world.host.diff(seeded!.id, updated.properties, other)).toMatchObject({ replaces: ["adoptId"] });
  });

  it("a change of a forecast fails the plan: the service refuses it, and makes no new one for a replacement but by adoption", async () => {
    const [seeded] = (await world.api("GET", "/forecasts")) as { id: string; name: string }[];
    const imported = await world.host.read(seeded!.id, world.inputs("forecasts", {}));
    expect(imported.properties).toMatchObject({ managed: true });
    const renamed = world.inputs("forecasts", { name: "Renamed" });
    await expect(world.host.diff(seeded!.id, imported.properties, renamed)).rejects.toThrow(`Forecast ${seeded!.id} is managed by the service and read-only: it refuses every change (name)`);
    // Recorded before forecasts answered `managed`, and replaced on the change (`replaceOnChanges: ["name"]`).
    const { managed: _managed, ...older } = imported.properties;
    await expect(world.host.diff(seeded!.id, older, { ...renamed, __replaceOnChanges: ["name"] })).rejects.toThrow(
      `Forecast ${seeded!.id} cannot be replaced: the service makes no Forecast through the API (one is only adopted), and a change of name needs a new one; declare it as recorded, or adopt another Forecast in a resource of its own (adoptId)`);
    const adopting = { ...renamed, __replaceOnChanges: ["name"], adoptId: "44444444-4444-4444-8444-444444444444" };
    expect(await world.host.diff(seeded!.id, imported.properties, adopting)).toMatchObject({ replaces: expect.arrayContaining(["name"]) });
  });

  it("Migration: its approval time is set once, as the service keeps the first; another is refused in check", async () => {
    const v1 = (await world.api("POST", "/accounts", { name: "Approved v1" })) as { id: string };
    const v2 = (await world.api("POST", "/accounts", { name: "Approved v2" })) as { id: string };
    const migration = (extra: Props = {}) => world.inputs("migrations", { type: "identity_graph_v1_to_v2", v1AccountId: v1.id, v2AccountId: v2.id, ...extra });
    const unapproved = (await world.host.check({}, migration())).inputs;
    const approving = await world.host.check(unapproved, migration({ approvedAt: "2026-01-01T00:00:00Z" }));
    expect(approving.failures).toEqual([]);
    expect((await world.host.check(approving.inputs, migration({ approvedAt: "2026-01-01T00:00:00Z" }))).failures).toEqual([]);
    expect((await world.host.check(approving.inputs, migration({ approvedAt: "2026-02-01T00:00:00Z" }))).failures).toEqual([{
      property: "approvedAt",
      reason: `is set once: the service keeps the first approvedAt, "2026-01-01T00:00:00Z", and ignores any other; declare that value again`,
    }]);
    expect((await world.host.check(approving.inputs, migration())).failures.map((f) => f.property)).toEqual(["approvedAt"]);
    // Its accounts changed, it is replaced by a new migration, which takes its own approval.
    const swapped = migration({ v1AccountId: v2.id, v2AccountId: v1.id, approvedAt: "2026-03-01T00:00:00Z" });
    expect((await world.host.check(approving.inputs, swapped)).failures).toEqual([]);
  });

  it("Migration: replaced when its accounts change, the old one deleted first (the service takes one per pair)", async () => {
    const v1 = (await world.api("POST", "/accounts", { name: "Brand v1" })) as { id: string };
    const v2 = (await world.api("POST", "/accounts", { name: "Brand v2" })) as { id: string };
    const inputs = world.inputs("migrations", { type: "identity_graph_v1_to_v2", v1AccountId: v1.id, v2AccountId: v2.id });
    expect((await world.host.check({}, inputs)).failures).toEqual([]);
    const created = await world.host.create(inputs);
    expect(created.properties).toMatchObject({ v1AccountId: v1.id, v2AccountId: v2.id });
    const swapped = { ...inputs, v1AccountId: v2.id, v2AccountId: v1.id };
    expect(await world.host.diff(created.id, created.properties, swapped)).toMatchObject({ changes: "some", replaces: ["v1AccountId", "v2AccountId"], deleteBeforeReplace: true });
    // Another stack's migration of the same pair, in either order: the preview says which one, as the create would.
    for (const again of [inputs, swapped]) {
      expect((await world.host.check({}, again)).failures).toEqual([{
        property: "v2AccountId",
        reason: `the accounts ${String(again.v1AccountId)} and ${String(again.v2AccountId)} are already paired by migration ${created.id}, and the service takes one migration per pair until it is rolled back: manage that one with adoptId: "${created.id}", or roll it back first`,
      }]);
    }
  });
});

describe("persona names", () => {
  it("names personas through the personas endpoint once built, and shows a rename made elsewhere as drift", async () => {
    const base = { name: "Shoppers", cohortId: leads, numberOfClusters: 3, waitFor: "ready" };
    const created = await world.host.create(world.inputs("persona_sets", base));
    const personas = created.properties.personas as { id: string; name: string }[];
    expect(personas.length).toBe(3);
    const [first] = personas;

    const named = world.inputs("persona_sets", { ...base, personaNames: { [first!.id]: "Bargain hunters" } });
    expect((await world.host.diff(created.id, created.properties, named)).changes).toBe("some");
    const before = world.proxy.requests.length;
    const updated = await world.host.update(created.id, created.properties, named);
    expect(world.proxy.requests.slice(before).filter((r) => r.method === "PATCH").map((r) => [r.path, r.body]))
      .toEqual([[`/persona_sets/${created.id}/personas/${first!.id}`, { name: "Bargain hunters" }]]);
    expect(updated.properties.personaNames).toEqual({ [first!.id]: "Bargain hunters" });
    expect((updated.properties.personas as { id: string; name: string }[]).find((p) => p.id === first!.id)?.name).toBe("Bargain hunters");
    expect((await world.host.diff(created.id, updated.properties, named)).changes).toBe("none");

    await world.api("PATCH", `/persona_sets/${created.id}/personas/${first!.id}`, { name: "Renamed elsewhere" });
    const refreshed = await world.host.read(created.id, updated.properties);
    expect(refreshed.properties.personaNames).toEqual({ [first!.id]: "Renamed elsewhere" });
    expect((await world.host.diff(created.id, refreshed.properties, named)).changes).toBe("some");
  });

  it("refuses a persona id the set does not have, listing its personas", async () => {
    const error = (await world.host.create(world.inputs("persona_sets", { name: "Unknown persona", cohortId: leads, waitFor: "ready", personaNames: { "no-such-persona": "X" } })).catch((e: unknown) => e)) as HostError;
    expect(error.message).toMatch(/no-such-persona.*its personas: /);
    // The set was created: it stays in state, so the next update can fix the names.
    expect(error.initFailed?.properties).toMatchObject({ name: "Unknown persona", __kind: "persona_sets" });
  });
});

describe("uploads", () => {
  const stores = "store_id,store_name,lat,lon\n1,Main St,40.7,-74.0\n";
  const upload = (extra: Props) => world.inputs("uploads", { directory: "stores", filename: "stores.csv", content: stores, ...extra });
  const uploadByHand = async (subpath: string, body: string) => {
    const response = await fetch(`${world.emulator.url}/v1/uploads/${subpath}`, {
      method: "POST", headers: { authorization: `Bearer ${world.emulator.apiKey}`, "content-type": "text/csv" }, body,
    });
    expect(response.status).toBe(201);
  };
  const md5Listed = async (subpath: string) => (await world.api("GET", "/v1/uploads") as { subpath: string; md5_hash: string }[]).find((u) => u.subpath === subpath)?.md5_hash;

  it("checks names and content before any request", async () => {
    const mark = await world.mark();
    const { failures } = await world.host.check({}, upload({ filename: "stores.zip", source: "/tmp/x.csv" }));
    expect(failures).toEqual(expect.arrayContaining([
      { property: "content", reason: expect.stringMatching(/exactly one of content or source/) },
      { property: "filename", reason: expect.stringMatching(/no longer supported/) },
    ]));
    // Its types take adoptId as every class's do; an upload has no adoption, which the create would ignore.
    expect((await world.host.check({}, upload({ adoptId: "stores/stores.csv" }))).failures).toEqual([
      { property: "adoptId", reason: "Upload takes no adoptId: it is made its own way, never adopted; take an existing one over with `pulumi import` of the native face (pulumi-audience/native)" },
    ]);
    expect(await world.serviceCalls(mark)).toEqual([]);
  });

  it("uploads the bytes, reads the file back, re-uploads changed content, replaces on a new name", async () => {
    const inputs = upload({});
    expect((await world.host.check({}, inputs)).failures).toEqual([]);
    const created = await world.host.create(inputs);
    expect(created.id).toBe("stores/stores.csv");
    expect(world.proxy.requests.map((r) => `${r.method} ${r.path}`).slice(-2)).toEqual(["POST /uploads/stores/stores.csv", "GET /uploads"]);
    const md5 = createHash("md5").update(stores).digest("hex");
    expect(created.properties).toMatchObject({ directory: "stores", filename: "stores.csv", subpath: "stores/stores.csv", fileSize: Buffer.byteLength(stores), md5Hash: md5 });
    const read = await world.host.read(created.id, created.properties);
    expect(read.properties).toMatchObject({ fileSize: Buffer.byteLength(stores), md5Hash: md5 });
    const mark = await world.mark();
    expect((await world.host.diff(created.id, read.properties, inputs)).changes).toBe("none");
    expect(await world.serviceCalls(mark)).toEqual([]);

    const changed = upload({ content: "store_id,store_name,lat,lon\n1,Main St,40.7,-74.0\n2,Elm St,40.8,-73.9\n" });
    expect(await world.host.diff(created.id, read.properties, changed)).toMatchObject({ changes: "some", replaces: [] });
    const updated = await world.host.update(created.id, read.properties, changed);
    expect(updated.properties.md5Hash).toBe(createHash("md5").update(changed.content as string).digest("hex"));
    expect(await world.host.diff(created.id, updated.properties, upload({ filename: "shops.csv" }))).toMatchObject({ replaces: ["filename"] });
  });

  it("asks to delete before a replacement that writes the same path, so the old file's delete cannot remove the new one", async () => {
    const created = await world.host.create(upload({ filename: "kept.csv" }));
    // New bytes are an update, which `replaceOnChanges: ["content"]` turns into a replace: the answer holds for it.
    const newBytes = upload({ filename: "kept.csv", content: "store_id\n2\n" });
    expect(await world.host.diff(created.id, created.properties, newBytes)).toMatchObject({ changes: "some", replaces: [], deleteBeforeReplace: true });
    expect(await world.host.diff(created.id, created.properties, upload({ filename: "moved.csv" }))).toMatchObject({ replaces: ["filename"], deleteBeforeReplace: false });
    expect(await world.host.diff(created.id, created.properties, upload({ filename: UNKNOWN }))).toMatchObject({ replaces: ["filename"], deleteBeforeReplace: true });
  });

  it("reads an imported file's directory and filename from its id, so the program written for it replaces nothing", async () => {
    const content = "store_id\n7\n";
    const byHand = await fetch(`${world.emulator.url}/v1/uploads/imported/stores.csv`, {
      method: "POST", headers: { authorization: `Bearer ${world.emulator.apiKey}`, "content-type": "text/csv" }, body: content,
    });
    expect(byHand.status).toBe(201);
    // An import gives the id alone.
    const imported = await world.host.read("imported/stores.csv", world.inputs("uploads", {}));
    const md5Hash = createHash("md5").update(content).digest("hex");
    expect(imported.inputs).toMatchObject({ directory: "imported", filename: "stores.csv", md5Hash });
    expect(imported.properties).toMatchObject({ directory: "imported", filename: "stores.csv", md5Hash });
    const declared = (await world.host.check(imported.inputs, upload({ directory: "imported", content }))).inputs;
    expect(await world.host.diff(imported.id, imported.properties, declared)).toMatchObject({ replaces: [] });
  });

  it("refuses a create at a path that already holds a file (by hand, or another resource's), naming it, uploading nothing", async () => {
    const theirs = "store_id\n8\n";
    await uploadByHand("stores/claimed.csv", theirs);
    const mark = await world.mark();
    const error = (await world.host.create(upload({ filename: "claimed.csv" })).catch((e: unknown) => e)) as HostError;
    expect(error.message).toMatch(/^Upload stores\/claimed\.csv: the account already holds a file at this path/);
    expect(error.message).toMatch(/`aliases`.*pulumi import audience:index:Upload <name> stores\/claimed\.csv/);
    // Deleting the file is advice for a file made outside any program only: for a rename it would lose the file.
    expect(error.message).toContain("A resource renamed in the program: give it `aliases` with its old name (deleting the file does not help");
    expect((await world.serviceCalls(mark)).map((c) => c.method)).toEqual(["GET"]);
    expect(await md5Listed("stores/claimed.csv")).toBe(createHash("md5").update(theirs).digest("hex"));
    // Preview says so first, for a resource not yet recorded; the same bytes may be an interrupted create's own.
    const checked = await world.host.check({}, upload({ filename: "claimed.csv" }));
    expect(checked.failures).toEqual([{ property: "filename", reason: error.message }]);
    expect((await world.host.check({}, upload({ filename: "claimed.csv", content: theirs }))).failures).toEqual([]);
    expect(world.host.warnings()).toContain(`${error.message}. The file holds the declared bytes: the up takes it only if an interrupted run of this very create uploaded it, and refuses it otherwise`);

    // A resource renamed without an alias: the new one's create is refused, so the old one's delete removes only its own.
    const first = await world.host.create(upload({ filename: "renamed.csv" }));
    await expect(world.host.create(upload({ filename: "renamed.csv" }))).rejects.toThrow(/already holds a file/);
    expect(await md5Listed(first.id)).toBe(first.properties.md5Hash);
  });

  it("a create retried after an interrupted attempt takes the file that attempt uploaded, and no older one", async () => {
    const startedAt = Date.now();
    await uploadByHand("stores/interrupted.csv", stores); // what the interrupted attempt sent
    const mark = await world.mark();
    const retried = await world.host.create({ ...upload({ filename: "interrupted.csv" }), __createStartedAt: startedAt });
    expect(retried).toMatchObject({ id: "stores/interrupted.csv", properties: { md5Hash: createHash("md5").update(stores).digest("hex") } });
    expect((await world.serviceCalls(mark)).map((c) => c.method)).toEqual(["GET"]);
    // A file there before the attempt began, or other bytes, is not what it made.
    await uploadByHand("stores/older.csv", stores);
    await expect(world.host.create({ ...upload({ filename: "older.csv" }), __createStartedAt: Date.now() + 60_000 })).rejects.toThrow(/already holds a file/);
    await uploadByHand("stores/other-bytes.csv", "store_id\n5\n");
    await expect(world.host.create({ ...upload({ filename: "other-bytes.csv" }), __createStartedAt: startedAt })).rejects.toThrow(/already holds a file/);
  });

  it("sees a file replaced by hand through the md5 the service lists, and re-uploads the declared bytes", async () => {
    const inputs = upload({ filename: "hand.csv" });
    const created = await world.host.create(inputs);
    const byHand = await fetch(`${world.emulator.url}/v1/uploads/stores/hand.csv`, {
      method: "POST", headers: { authorization: `Bearer ${world.emulator.apiKey}`, "content-type": "text/csv" }, body: "store_id\n9\n",
    });
    expect(byHand.status).toBe(201);
    const read = await world.host.read(created.id, created.properties);
    expect(read.properties.md5Hash).not.toBe(created.properties.md5Hash);
    expect(await world.host.diff(created.id, read.properties, inputs)).toMatchObject({ changes: "some", replaces: [] });
    const updated = await world.host.update(created.id, read.properties, inputs);
    expect(updated.properties.md5Hash).toBe(created.properties.md5Hash);
  });

  it("deletes the file on delete: the list omits it and a download answers 404; a file already gone is no failure", async () => {
    const created = await world.host.create(upload({ filename: "gone.csv" }));
    await world.host.delete(created.id, created.properties);
    expect(world.proxy.requests.at(-1)).toMatchObject({ method: "DELETE", path: "/uploads/stores/gone.csv" });
    const listed = (await world.api("GET", "/v1/uploads") as { subpath: string }[]).map((u) => u.subpath);
    expect(listed).not.toContain("stores/gone.csv");
    const download = await fetch(`${world.emulator.url}/v1/uploads/stores/gone.csv`, { headers: { authorization: `Bearer ${world.emulator.apiKey}` } });
    expect(download.status).toBe(404);
    expect(await world.host.read(created.id, created.properties)).toMatchObject({ id: "" });
  });

  it("a delete of a file already gone (deleted by hand) succeeds, as for every other family", async () => {
    const created = await world.host.create(upload({ filename: "by-hand-gone.csv" }));
    await world.api("DELETE", "/v1/uploads/stores/by-hand-gone.csv");
    await expect(world.host.delete(created.id, created.properties)).resolves.toBeUndefined();
    expect(world.proxy.requests.at(-1)).toMatchObject({ method: "DELETE", path: "/uploads/stores/by-hand-gone.csv" });
  });
});
