// Inputs a careful API refuses rather than stores or ignores: text that is not UTF-8, lone surrogates, NUL,
// names longer than the limit, paging parameters where nothing pages, list parameters a list does not take, a body
// that is not what its Content-Encoding says; and the Bearer scheme in any case.
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_NAME_LENGTH } from "pulumi-audience/sdk/contract";
import { emulator, type Client, type Json } from "./helpers.ts";

let api: Client;
beforeAll(async () => {
  api = await emulator();
});
afterAll(() => api.close());

/** POSTs raw bytes as JSON. */
async function postBytes(path: string, bytes: Uint8Array): Promise<{ status: number; body: Json }> {
  const reply = await fetch(`${api.url}${path}`, {
    method: "POST", headers: { authorization: `Bearer ${api.apiKey}`, "content-type": "application/json" }, body: bytes,
  });
  return { status: reply.status, body: (await reply.json()) as Json };
}

const cohortNames = async () => ((await api.get<Json[]>("/v1/cohorts")).body).map((c) => c.name);

describe("text a name can never hold", () => {
  it("refuses bytes that are not UTF-8 with a 400 naming the member, and stores nothing", async () => {
    const before = await cohortNames();
    const body = Buffer.concat([Buffer.from('{"name":"Leads '), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    const reply = await postBytes("/v1/cohorts", body);
    expect(reply.status).toBe(400);
    expect(reply.body.validationErrors).toEqual([expect.objectContaining({ path: "name", message: "is not valid UTF-8 text" })]);
    expect(await cohortNames()).toEqual(before);
  });

  it("refuses a body that is not UTF-8 and not JSON either, as a whole", async () => {
    const reply = await postBytes("/v1/cohorts", Buffer.from([0x7b, 0xc3, 0x28]));
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ error: "BAD_REQUEST", note: expect.stringContaining("not valid UTF-8") });
  });

  it("refuses a lone surrogate or NUL anywhere in a body, naming the member (nested ones too)", async () => {
    for (const raw of ['{"name":"a\\ud800"}', '{"name":"a\\udc00b"}', '{"name":"a\\u0000b"}']) {
      const reply = await api.call<Json>("POST", "/v1/cohorts", undefined, { raw });
      expect(reply.status, raw).toBe(400);
      expect(reply.body.validationErrors, raw).toEqual([expect.objectContaining({ path: "name" })]);
    }
    const nested = await api.call<Json>("POST", "/v1/cohorts", undefined, {
      raw: '{"name":"Buyers","stream_name":"orders","stream_conditions":[{"property":"sku","_eq":"x\\u0000"}]}',
    });
    expect(nested.body.validationErrors).toEqual([expect.objectContaining({ path: "stream_conditions[0]._eq" })]);
    // A well-formed pair written as escapes is ordinary text.
    const emoji = await api.call<Json>("POST", "/v1/cohorts", undefined, { raw: '{"name":"Fans \\ud83d\\ude00"}' });
    expect(emoji.status).toBe(201);
    expect(emoji.body.name).toBe("Fans \u{1F600}");
  });

  it(`refuses names longer than ${MAX_NAME_LENGTH} characters on create and on PATCH, and takes ${MAX_NAME_LENGTH}`, async () => {
    const long = await api.post<Json>("/v1/cohorts", { name: "x".repeat(100_000) });
    expect(long.status).toBe(400);
    expect(long.body.validationErrors).toEqual([expect.objectContaining({ path: "name", message: `must be at most ${MAX_NAME_LENGTH} characters` })]);
    const longest = await api.post<Json>("/v1/cohorts", { name: "y".repeat(MAX_NAME_LENGTH) });
    expect(longest.status).toBe(201);
    const patched = await api.patch<Json>(`/v1/cohorts/${String(longest.body.id)}`, { name: "z".repeat(MAX_NAME_LENGTH + 1) });
    expect(patched.status).toBe(400);
    expect(patched.body.validationErrors).toEqual([expect.objectContaining({ path: "name" })]);
  });

  it("holds other name-like members to the same limit: a stream name, a condition's property, a column", async () => {
    const long = "s".repeat(MAX_NAME_LENGTH + 1);
    const cohort = await api.post<Json>("/v1/cohorts", { name: "Buyers", stream_name: long, stream_conditions: [{ property: long, _eq: "x" }] });
    expect((cohort.body.validationErrors as Json[]).map((e) => e.path).sort()).toEqual(["stream_conditions[0].property", "stream_name"]);
    const dataset = await api.post<Json>("/v1/datasets", {
      name: "Orders", options: { type: "hosted_csv", upload_directory: "orders" }, identity_sets: { customer: { email: long } },
      output_to_streams: { [long]: { data_map: { datetime: { column_name: "date" } } } },
    });
    expect((dataset.body.validationErrors as Json[]).map((e) => e.path).sort()).toEqual([`identity_sets.customer.email`, `output_to_streams.${long}`]);
  });
});

describe("paging parameters", () => {
  it("are refused with a 400 naming them where the answer is not paged", async () => {
    for (const query of ["limit=-1", "limit=abc", "limit=100000", "limit=5", "offset=2"]) {
      for (const path of ["/v1/cohorts", "/v1/scopes", "/v1/accounts/current/usage/all", "/v1/graph"]) {
        const reply = await api.get<Json>(`${path}?${query}`);
        expect(reply.status, `${path}?${query}`).toBe(400);
        expect(reply.body.validationErrors).toEqual([expect.objectContaining({ path: query.split("=")[0], message: expect.stringContaining("not paged") })]);
      }
    }
  });

  it("are refused with the listings that do page named, every family's", async () => {
    const reply = await api.get<{ validationErrors: { message: string }[] }>("/v1/cohorts?limit=5");
    const named = /only (.*) page\)?$/.exec(reply.body.validationErrors[0]?.message ?? "")?.[1]?.split(", ");
    expect(named).toEqual(expect.arrayContaining(["/locations", "/atlases/{id}/locations", "/atlases/{id}/logs/ingress", "/datasets/{id}/logs/ingress"]));
    for (const path of named ?? []) {
      const paged = await api.get(`${path.replace("{id}", "00000000-0000-4000-8000-000000000000").replace("{log_id}", "00000000-0000-4000-8000-000000000000")}?limit=5`);
      expect(paged.status, path).not.toBe(400);
    }
  });

  it("are refused out of range where the answer pages, and taken in range", async () => {
    for (const query of ["limit=-1", "limit=abc", "limit=100000", "offset=-3"]) {
      const reply = await api.get<Json>(`/v1/locations?${query}`);
      expect(reply.status, query).toBe(400);
      expect(reply.body.validationErrors).toEqual([expect.objectContaining({ path: query.split("=")[0] })]);
    }
    const page = await api.get<Json[]>("/v1/locations?limit=5&offset=0");
    expect(page.status).toBe(200);
    expect(page.headers.get("x-total-count")).not.toBeNull();
  });
});

describe("list parameters", () => {
  it("refuse ids naming no id, an archived that is not true or false, and a parameter no list takes, naming it", async () => {
    const cases: [string, string, RegExp][] = [
      ["ids=,,", "ids", /names no id/], ["ids=", "ids", /names no id/], ["archived=maybe", "archived", /true or false/], ["cursor=abc", "cursor", /ids and archived/],
    ];
    for (const [query, path, message] of cases) {
      const reply = await api.get<Json>(`/v1/cohorts?${query}`);
      expect(reply.status, query).toBe(400);
      expect(reply.body.validationErrors, query).toEqual([expect.objectContaining({ path, message: expect.stringMatching(message) })]);
    }
    expect((await api.get<Json[]>("/v1/cohorts?archived=false")).body.map((c) => c.name)).toEqual(expect.arrayContaining(["Leads"]));
    expect((await api.get<Json[]>("/v1/cohorts?archived=true")).status).toBe(200);
  });
});

describe("Content-Encoding", () => {
  const post = (body: Uint8Array, encoding: string) => fetch(`${api.url}/v1/cohorts`, {
    method: "POST", headers: { authorization: `Bearer ${api.apiKey}`, "content-type": "application/json", "content-encoding": encoding }, body,
  });

  it("gzip: a compressed body is read; a plain one is refused, and nothing is stored", async () => {
    const made = await post(gzipSync(JSON.stringify({ name: "Zipped" })), "gzip");
    expect(made.status).toBe(201);
    const plain = await post(new TextEncoder().encode(JSON.stringify({ name: "Not zipped" })), "gzip");
    expect(plain.status).toBe(400);
    expect(((await plain.json()) as Json).note).toMatch(/not gzip data/);
    expect(await cohortNames()).toContain("Zipped");
    expect(await cohortNames()).not.toContain("Not zipped");
  });

  it("refuses an encoding it does not take, naming it", async () => {
    const reply = await post(new TextEncoder().encode(JSON.stringify({ name: "Brotli" })), "br");
    expect(reply.status).toBe(400);
    expect(((await reply.json()) as Json).note).toMatch(/Content-Encoding br is not taken/);
    expect(await cohortNames()).not.toContain("Brotli");
  });
});

describe("the Authorization scheme", () => {
  it("is read case-insensitively (RFC 7235)", async () => {
    for (const scheme of ["bearer", "BEARER", "Bearer", "bEaReR"]) {
      const reply = await fetch(`${api.url}/v1/accounts/current`, { headers: { authorization: `${scheme} ${api.apiKey}` } });
      expect(reply.status, scheme).toBe(200);
    }
    const other = await fetch(`${api.url}/v1/accounts/current`, { headers: { authorization: `Basic ${api.apiKey}` } });
    expect(other.status).toBe(401);
    expect(((await other.json()) as Json).error).toBe("MALFORMED_API_KEY");
  });
});
