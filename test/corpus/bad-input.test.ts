// The bad-input corpus: every row of http-cases.ts sent to the emulator over loopback must get its 4xx in the
// service's error body and change nothing stored; every row of check-cases.ts must be refused by the provider's
// check naming its camelCase property, before any request. Prints the counts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { families, serviceErrorBody, type Collection } from "pulumi-audience/sdk/contract";
import { clientService, createLifecycle, credentialsFor, readSettings } from "pulumi-audience/provider";
import { emulator, sampleIds, seeded, type Client, type Json } from "../emulator/helpers.ts";
import { samples } from "../samples.ts";
import { acceptedNames, httpCases, sampled, type Base, type HttpCase } from "./http-cases.ts";
import { checkCases, sampleInputs } from "./check-cases.ts";

let api: Client;
/** The connection sample's password: no refusal may echo it. */
let password: string;
let base: Base;
const counts = { http: 0, httpRejected: 0, check: 0, checkRefused: 0, accepted: 0 };

/** A collection's stored documents, without what each answer computes afresh (signed URLs). */
async function stored(collection: string): Promise<unknown> {
  const reply = await api.get<Json[]>(`/v1/${collection}`);
  const archived = await api.get<Json[]>(`/v1/${collection}?archived=true`);
  return JSON.parse(JSON.stringify([reply.status, reply.body, archived.body]).replace(/https?:\/\/[^"]*\?[^"]*/g, "<signed url>"));
}

const listed = [...new Set(["cohorts", ...sampled.map((c) => families[c].path)])];
async function everything(): Promise<Record<string, unknown>> {
  return Object.fromEntries(await Promise.all(listed.map(async (c) => [c, await stored(c)] as const)));
}

beforeAll(async () => {
  api = await emulator();
  const ids = sampleIds(api);
  const made = new Map<Collection, { id: string; body: Json }>();
  for (const c of sampled) {
    const body = await samples[c]!.body(ids);
    made.set(c, { id: await ids.create(c, body), body });
  }
  const { leads, forecast } = await seeded(api);
  base = {
    id: (c) => made.get(c)!.id,
    body: (c) => structuredClone(made.get(c)!.body),
    leads,
    forecast: String(forecast),
    stream: String(made.get("streams")!.body.name),
  };
  password = String((base.body("connections").options as Json).password);
});

afterAll(async () => {
  console.log(`bad-input corpus: ${counts.http} HTTP cases tried, ${counts.httpRejected} rejected with the right 4xx; `
    + `${counts.check} program cases tried, ${counts.checkRefused} refused by check before any request; `
    + `${counts.http + counts.check} in all; ${counts.accepted} unusual but valid names stored unchanged`);
  await api.close();
});

/** The provider's lifecycle, pointed at the emulator as a stack's config points it. */
function lifecycle() {
  const settings = readSettings(() => undefined, { AUDIENCE_API_KEY: api.apiKey, AUDIENCE_BASE_URL: api.url });
  return createLifecycle({ settings: () => settings, service: (account) => clientService(credentialsFor(settings, account)), sleep: async () => undefined });
}

async function send(row: HttpCase) {
  const path = `/v1${row.path(base)}`;
  if (row.raw) return api.call<Json>(row.method, path, undefined, { raw: row.raw(base), ...(row.contentType ? { contentType: row.contentType } : {}) });
  const body = row.body?.(base);
  return api.call<Json>(row.method, path, body, row.contentType ? { contentType: row.contentType } : {});
}

describe("the emulator refuses every bad request with its 4xx and changes nothing", () => {
  let before: Record<string, unknown>;
  beforeAll(async () => {
    before = await everything();
  });

  it.each(httpCases.map((row) => [row.name, row] as const))("%s", async (_name, row) => {
    counts.http += 1;
    const collection = row.path(base).split(/[/?]/)[1] ?? "";
    const kept = listed.includes(collection) ? before[collection] : undefined;
    const reply = await send(row);
    expect({ status: reply.status, error: reply.body?.error }).toEqual({ status: row.status, error: row.error });
    expect(serviceErrorBody.safeParse(reply.body).success).toBe(true);
    expect(JSON.stringify(reply.body)).not.toContain(password);
    if (row.at !== undefined) {
      expect((reply.body.validationErrors as { path: string }[]).map((e) => e.path)).toContain(row.at);
    }
    if (kept !== undefined) expect(await stored(collection)).toEqual(kept);
    counts.httpRejected += 1;
  });

  it("has changed nothing stored, in any family", async () => {
    expect(await everything()).toEqual(before);
  });
});

describe("unusual but valid names", () => {
  it.each(acceptedNames.map((name) => [name.length > 40 ? `${name.slice(0, 12)}... (${name.length} characters)` : JSON.stringify(name), name] as const))(
    "%s is stored and answered back unchanged, and passes check",
    async (_label, name) => {
      const created = await api.post<Json>("/v1/cohorts", { name });
      expect(created.status).toBe(201);
      expect((await api.get<Json>(`/v1/cohorts/${String(created.body.id)}`)).body.name).toBe(name);
      expect((await api.del(`/v1/cohorts/${String(created.body.id)}`)).status).toBe(204);
      expect((await lifecycle().check({}, { name, __kind: "cohorts" })).failures ?? []).toEqual([]);
      counts.accepted += 1;
    },
  );
});

describe("the provider's check refuses every bad program input before any request", () => {
  let inputs: Awaited<ReturnType<typeof sampleInputs>>;
  let since = 0;
  beforeAll(async () => {
    // Samples naming what the account holds: check asks whether the ids a valid program names exist.
    inputs = await sampleInputs(sampleIds(api));
  });

  it("accepts every family's sample as it is", async () => {
    for (const c of sampled) {
      const result = await lifecycle().check({}, { ...inputs[c], __kind: c });
      expect([c, result.failures ?? []]).toEqual([c, []]);
    }
    const log = (await api.control<Json[]>("GET", "/requests")).body;
    since = Number(log.at(-1)?.seq ?? 0);
  });

  it.each(checkCases.map((row) => [row.name, row] as const))("%s", async (_name, row) => {
    counts.check += 1;
    const news = { ...row.inputs(structuredClone(inputs[row.collection]!)), __kind: row.collection };
    const result = await lifecycle().check({}, news);
    expect((result.failures ?? []).map((f) => f.property)).toContain(row.property);
    expect(JSON.stringify(result.failures)).not.toContain(password);
    counts.checkRefused += 1;
  });

  it("sent no request to the service", async () => {
    expect((await api.control<Json[]>("GET", `/requests?since=${since}`)).body).toEqual([]);
  });
});
