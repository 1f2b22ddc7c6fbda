// Merge patch, archive cascades, dependency rules on delete, builds, downstream re-runs, graph and outbox.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { emulator, scopeBody, seeded, type Client, type Json } from "./helpers.ts";

let api: Client;
let ids: Awaited<ReturnType<typeof seeded>>;
beforeAll(async () => {
  api = await emulator();
});
beforeEach(async () => {
  await api.control("POST", "/reset");
  ids = await seeded(api);
});
afterAll(() => api.close());

async function pipeline(extra: Json = {}) {
  const outcome = (await api.post<Json>("/v1/outcomes", { name: "Will buy", attainment_cohort_id: ids.customers })).body;
  const scope = (await api.post<Json>("/v1/scopes", scopeBody(ids.leads, String(ids.forecast), {
    payload: { forecast_ids: [ids.forecast], outcome_ids: [outcome.id], location: { max_distance: 5000, distance_output_units: "miles" } }, ...extra,
  }))).body;
  const target = (await api.post<Json>("/v1/targets", { name: "CSV", scope_id: scope.id, representation: { mode: "identified" }, options: { type: "hosted_csv" } })).body;
  return { outcome: String(outcome.id), scope: String(scope.id), target: String(target.id) };
}

describe("merge patch", () => {
  it("keeps omitted nested members, clears members set to null, under both media types", async () => {
    const { scope } = await pipeline();
    const patched = await api.patch<Json>(`/v1/scopes/${scope}`, { payload: { location: { max_distance: null } } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const location = (patched.body.payload as Json).location as Json;
    expect(location.max_distance).toBeUndefined();
    expect(location.distance_output_units).toBe("miles");
    expect((patched.body.payload as Json).forecast_ids).toEqual([ids.forecast]);
    const old = await api.call<Json>("PATCH", `/scopes/${scope}`, { name: "Old media type" }, { contentType: "application/json+merge-patch" });
    expect(old.body).toMatchObject({ name: "Old media type", population: { cohort_ids: [ids.leads] } });
  });

  it("checks the merged document with the create rules", async () => {
    const { scope } = await pipeline();
    const reply = await api.patch<Json>(`/v1/scopes/${scope}`, { payload: { location: { min_distance: 9000 } } });
    expect(reply.status).toBe(400);
    expect(reply.body.validationErrors).toEqual([expect.objectContaining({ path: "payload.location.min_distance" })]);
    const required = await api.patch<Json>(`/v1/scopes/${scope}`, { name: null });
    expect(required.status).toBe(400);
  });

  it("refuses changing a create-only member", async () => {
    const { target } = await pipeline();
    const reply = await api.patch<Json>(`/v1/targets/${target}`, { options: { type: "lookup_api" } });
    expect(reply.status).toBe(400);
    expect(reply.body.validationErrors).toEqual([expect.objectContaining({ path: "options.type", context: { errorType: "create_only" } })]);
  });
});

describe("archive", () => {
  it("needs everything downstream archived first, or named in cascade_to", async () => {
    const p = await pipeline();
    const blocked = await api.post<Json>(`/v1/outcomes/${p.outcome}/archive`);
    expect(blocked.status).toBe(409);
    expect(blocked.body.note).toContain(p.scope);
    expect((await api.post<Json>(`/v1/outcomes/${p.outcome}/archive`, { cascade_to: [p.scope] })).status).toBe(409);
    expect((await api.post(`/v1/outcomes/${p.outcome}/archive`, { cascade_to: [p.scope, p.target] })).status).toBe(204);
    expect((await api.get<Json[]>("/v1/scopes")).body).toEqual([]);
    expect((await api.get<Json[]>("/v1/targets?archived=true")).body.map((t) => t.id)).toEqual([p.target]);
    expect((await api.get<Json>(`/v1/targets/${p.target}`)).body.archived_at).toEqual(expect.any(String));
  });

  it("cascades to all downstream, and unarchiving cascades upstream", async () => {
    const p = await pipeline();
    expect((await api.post(`/v1/scopes/${p.scope}/archive`, { cascade_to_all: true })).status).toBe(204);
    expect((await api.get<Json>(`/v1/targets/${p.target}`)).body.archived_at).toEqual(expect.any(String));
    expect((await api.get<Json>(`/v1/outcomes/${p.outcome}`)).body.archived_at).toBeNull();
    const blocked = await api.post<Json>(`/v1/targets/${p.target}/unarchive`);
    expect(blocked.status).toBe(409);
    expect(blocked.body.note).toContain(p.scope);
    expect((await api.post(`/v1/targets/${p.target}/unarchive`, { cascade_to_all: true })).status).toBe(204);
    expect((await api.get<Json>(`/v1/scopes/${p.scope}`)).body.archived_at).toBeNull();
    expect((await api.get<Json[]>("/v1/targets")).body.map((t) => t.id)).toEqual([p.target]);
  });

  it("archived resources take no changes", async () => {
    const p = await pipeline();
    await api.post(`/v1/targets/${p.target}/archive`);
    expect((await api.patch<Json>(`/v1/targets/${p.target}`, { name: "x" })).status).toBe(409);
  });
});

describe("delete", () => {
  it("is refused while others depend on the resource, naming them", async () => {
    const p = await pipeline();
    const reply = await api.del<Json>(`/v1/scopes/${p.scope}`);
    expect(reply.status).toBe(409);
    expect(reply.body).toMatchObject({ error: "CONFLICT", note: expect.stringContaining(p.target) });
    expect((await api.del(`/v1/targets/${p.target}`)).status).toBe(204);
    expect((await api.del(`/v1/scopes/${p.scope}`)).status).toBe(204);
  });

  it("names each dependent by its family's singular, not by its collection less an s", async () => {
    const atlas = (await api.post<Json>("/v1/atlases", {
      name: "Stores", options: { type: "hosted_csv", upload_directory: "stores" }, output_to_locations: { name: "store", latitude: "lat", longitude: "lon" },
    })).body;
    const analysis = (await api.post<Json>("/v1/market_opportunity_analyses", { name: "Reach", locations: { atlas_ids: [atlas.id] } })).body;
    const reply = await api.del<Json>(`/v1/atlases/${String(atlas.id)}`);
    expect(reply.status).toBe(409);
    expect(reply.body.note).toBe(`The atlas ${String(atlas.id)} cannot be deleted: market_opportunity_analysis Reach (${String(analysis.id)}) depends on it. Delete or change them first.`);
  });
});

describe("builds", () => {
  it("move new -> starting -> running -> ready when advanced, stamping times", async () => {
    await api.control("PUT", "/builds", { default: "manual" });
    const p = await pipeline();
    const statuses = async () => (await api.get<Json>(`/v1/scopes/${p.scope}`)).body;
    expect((await statuses()).status).toBe("new");
    const seen: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      await api.control("POST", "/builds/advance", { id: p.scope });
      seen.push((await statuses()).status);
    }
    expect(seen).toEqual(["starting", "running", "ready"]);
    const ready = await statuses();
    expect(ready.last_updated_output_at).toEqual(ready.status_changed_at);
    expect(ready.last_updated_config_at).toEqual(expect.any(String));
  });

  it("can fail with status_error", async () => {
    await api.control("PUT", "/builds", { default: "manual" });
    const p = await pipeline();
    await api.control("POST", "/builds/advance", { id: p.target, error: "destination unreachable" });
    expect((await api.get<Json>(`/v1/targets/${p.target}`)).body).toMatchObject({ status: "error", status_error: "destination unreachable" });
  });

  it("re-run everything downstream of a change, and on force_update", async () => {
    const p = await pipeline();
    expect((await api.get<Json>(`/v1/targets/${p.target}`)).body.status).toBe("ready");
    await api.control("PUT", "/builds", { default: "manual" });
    await api.patch(`/v1/outcomes/${p.outcome}`, { prediction_mode: "static" });
    for (const path of [`/v1/outcomes/${p.outcome}`, `/v1/scopes/${p.scope}`, `/v1/targets/${p.target}`]) {
      expect((await api.get<Json>(path)).body.status, path).toBe("new");
    }
    await api.control("POST", "/builds/advance", { to: "ready" });
    expect((await api.post(`/v1/scopes/${p.scope}/force_update`)).status).toBe(204);
    expect((await api.get<Json>(`/v1/outcomes/${p.outcome}`)).body.status).toBe("ready");
    expect((await api.get<Json>(`/v1/targets/${p.target}`)).body.status).toBe("new");
  });

  it("a patch that changes nothing re-runs nothing", async () => {
    const p = await pipeline();
    await api.control("PUT", "/builds", { default: "manual" });
    await api.patch(`/v1/scopes/${p.scope}`, { name: "Adaptive discounting" });
    expect((await api.get<Json>(`/v1/targets/${p.target}`)).body.status).toBe("ready");
  });

  it("progress on their own after a duration", async () => {
    await api.control("PUT", "/builds", { default: 150 });
    const p = await pipeline();
    expect((await api.get<Json>(`/v1/scopes/${p.scope}`)).body.status).toBe("new");
    await new Promise((r) => setTimeout(r, 400));
    expect((await api.get<Json>(`/v1/scopes/${p.scope}`)).body.status).toBe("ready");
  });

  it("hold an outcome in preview until preview is turned off", async () => {
    await api.control("PUT", "/builds", { default: "immediate" });
    const outcome = (await api.post<Json>("/v1/outcomes", { name: "Later", attainment_cohort_id: ids.customers, preview: true })).body;
    expect(outcome.status).toBe("new");
    expect((await api.patch<Json>(`/v1/outcomes/${String(outcome.id)}`, { preview: false })).body.status).toBe("ready");
  });

  it("mail the account owner when a scope or target is ready", async () => {
    const p = await pipeline();
    const outbox = (await api.control<Json[]>("GET", "/outbox")).body;
    expect(outbox.map((m) => m.resource_id)).toEqual(expect.arrayContaining([p.scope, p.target]));
    expect(outbox.find((m) => m.resource_id === p.scope)).toMatchObject({ to: "owner@example.com", subject: expect.stringContaining("finished building") });
    expect(outbox.some((m) => m.resource_id === p.outcome)).toBe(false);
  });
});

describe("the dependency graph", () => {
  it("lists edges with live statuses, in /graph and /dependencies", async () => {
    await api.control("PUT", "/builds", { default: "manual" });
    const p = await pipeline();
    const graph = (await api.get<Json[]>("/v1/graph")).body;
    expect(graph).toContainEqual(expect.objectContaining({
      upstream_id: p.scope, upstream_type: "scopes", upstream_status: "new", downstream_id: p.target, downstream_type: "targets",
    }));
    expect(graph).toContainEqual(expect.objectContaining({ upstream_id: ids.leads, upstream_type: "cohorts", downstream_id: p.scope }));
    await api.control("POST", "/builds/advance", { id: p.scope, to: "ready" });
    const deps = (await api.get<Json[]>(`/v1/dependencies?id=${p.target}`)).body;
    expect(deps).toEqual([expect.objectContaining({ upstream_id: p.scope, upstream_status: "ready", downstream_status: "new" })]);
  });
});

describe("downstream re-runs", () => {
  it("wait for the upstream build to finish", async () => {
    const p = await pipeline();
    await api.control("PUT", "/builds", { default: "manual" });
    await api.post(`/v1/scopes/${p.scope}/force_update`);
    const moved = (await api.control<{ advanced: Json[] }>("POST", "/builds/advance", { collection: "targets" })).body.advanced;
    expect(moved).toEqual([]);
    expect((await api.get<Json>(`/v1/targets/${p.target}`)).body.status).toBe("new");
    await api.control("POST", "/builds/advance", { id: p.scope, to: "ready" });
    await api.control("POST", "/builds/advance", { collection: "targets" });
    expect((await api.get<Json>(`/v1/targets/${p.target}`)).body.status).toBe("starting");
  });

  it("run immediately once a manual upstream is advanced, when their own family is immediate", async () => {
    const p = await pipeline();
    await api.control("PUT", "/builds", { default: "immediate", scopes: "manual" });
    await api.patch(`/v1/scopes/${p.scope}`, { name: "Changed" });
    expect((await api.get<Json>(`/v1/targets/${p.target}`)).body.status).toBe("new");
    await api.control("POST", "/builds/advance", { id: p.scope, to: "ready" });
    expect((await api.get<Json>(`/v1/targets/${p.target}`)).body.status).toBe("ready");
  });

  it("a new one waits for an upstream still building, and runs once it is ready, when its own family is immediate", async () => {
    const p = await pipeline();
    await api.control("PUT", "/builds", { default: "immediate", scopes: "manual" });
    await api.patch(`/v1/scopes/${p.scope}`, { name: "Changed" });
    const created = await api.post<Json>("/v1/targets", { name: "Second CSV", scope_id: p.scope, representation: { mode: "identified" }, options: { type: "hosted_csv" } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: "new", last_updated_output_at: null });
    await api.control("POST", "/builds/advance", { id: p.scope, to: "ready" });
    expect((await api.get<Json>(`/v1/targets/${String(created.body.id)}`)).body.status).toBe("ready");
  });

  it("a new one with nothing building upstream is answered ready, its outputs made", async () => {
    const p = await pipeline();
    // Nothing building upstream: the pipeline's own builds are done (they take a moment on a loaded machine).
    for (let i = 0; i < 100 && (await api.get<Json>(`/v1/scopes/${p.scope}`)).body.status !== "ready"; i++) await new Promise((r) => setTimeout(r, 50));
    const created = await api.post<Json>("/v1/targets", { name: "Second CSV", scope_id: p.scope, representation: { mode: "identified" }, options: { type: "hosted_csv" } });
    expect(created.body).toMatchObject({ status: "ready", status_error: null });
    expect(created.body.last_updated_output_at).toBe(created.body.status_changed_at);
    expect(await api.get<Json>(`/v1/targets/${String(created.body.id)}`)).toMatchObject({ body: created.body });
  });

  it("finish after their upstream when builds take time", async () => {
    const p = await pipeline();
    await api.control("PUT", "/builds", { default: 90 });
    await api.post(`/v1/outcomes/${p.outcome}/force_update`);
    await new Promise((r) => setTimeout(r, 600));
    const [outcome, scope, target] = await Promise.all([`/v1/outcomes/${p.outcome}`, `/v1/scopes/${p.scope}`, `/v1/targets/${p.target}`]
      .map(async (path) => (await api.get<Json>(path)).body));
    expect([outcome?.status, scope?.status, target?.status]).toEqual(["ready", "ready", "ready"]);
    expect(String(scope?.last_updated_output_at) >= String(outcome?.last_updated_output_at)).toBe(true);
    expect(String(target?.last_updated_output_at) >= String(scope?.last_updated_output_at)).toBe(true);
    expect(Date.parse(String(target?.last_updated_output_at)) - Date.parse(String(outcome?.last_updated_output_at))).toBeGreaterThanOrEqual(150);
  });
});

describe("datasets merged into each other", () => {
  it("still build: a cycle of references does not make them wait forever", async () => {
    const body = (name: string) => ({ name, identity_sets: { main: { email: "email" } }, options: { type: "hosted_csv", upload_directory: name } });
    const a = String((await api.post<Json>("/v1/datasets", body("a"))).body.id);
    const b = String((await api.post<Json>("/v1/datasets", body("b"))).body.id);
    expect((await api.patch(`/v1/datasets/${a}`, { merge_datasets: [b] })).status).toBe(200);
    expect((await api.patch<Json>(`/v1/datasets/${b}`, { merge_datasets: [a] })).body.status).toBe("ready");
    expect((await api.get<Json>(`/v1/datasets/${a}`)).body.status).toBe("ready");
  });
});
