// The data directory holds no credential, whichever request sent it, and only its owner may read it: every
// byte of every file is scanned for every key, password, token and signing secret used.
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { emulator, type Client, type Json } from "./helpers.ts";

const dirs: string[] = [];
let scanned = 0;
const searched = new Set<string>();
afterAll(() => {
  console.log(`data directory scan: ${searched.size} credentials and key hashes searched for, ${scanned} bytes scanned`);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function dataDir(): string {
  const parent = mkdtempSync(join(tmpdir(), "audience-data-"));
  dirs.push(parent);
  return join(parent, "emulator");
}

/** Every file of the directory (the -wal and -shm files included), with its bytes. */
function files(dir: string): { path: string; bytes: Buffer }[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile())
    .map((e) => ({ path: join(e.parentPath, e.name), bytes: readFileSync(join(e.parentPath, e.name)) }));
}

/** The credentials found in the directory's bytes, as `file: credential`. */
function found(dir: string, credentials: string[]): string[] {
  const hits: string[] = [];
  for (const c of credentials) searched.add(c);
  for (const { path, bytes } of files(dir)) {
    scanned += bytes.length;
    for (const c of credentials) if (bytes.includes(Buffer.from(c))) hits.push(`${path}: ${c}`);
  }
  return hits;
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

const API_KEY = "aud_datadir_key_5f1e2d3c4b5a69788796";
const secrets = {
  created: "created-pw-8c1f0e",
  patched: "patched-pw-71d2aa",
  rotated: "rotated-pw-0b9e44",
  privateKey: "-----BEGIN PRIVATE KEY-----MIIEvQIBADANBgkq",
  token: "dapi0123456789abcdef0123",
  clientSecret: "client-secret-5e6f7a8b",
  patchedToken: "dapi-patched-fedcba9876",
};

async function write(api: Client): Promise<string[]> {
  const made = async (body: Json) => {
    const reply = await api.post<Json>("/v1/connections", body);
    expect(reply.status).toBe(201);
    return String(reply.body.id);
  };
  const postgres = await made({ name: "Warehouse", options: {
    type: "postgres", host: "db.example.com", port: 5432, database: "d", schema: "s", user: "u", password: secrets.created,
  } });
  expect((await api.patch(`/v1/connections/${postgres}`, { options: { password: secrets.patched } })).status).toBe(200);
  // A rotation re-stores the connection; the new password is then sent by PATCH, as a client does.
  expect((await api.post(`/v1/connections/${postgres}/rotate_credentials`, { type: "postgres" })).status).toBe(200);
  expect((await api.patch(`/v1/connections/${postgres}`, { name: "Warehouse (rotated)", options: { password: secrets.rotated } })).status).toBe(200);
  await made({ name: "Snowflake", options: { type: "snowflake", database: "d", user: "u", warehouse: "w", private_key: secrets.privateKey } });
  const databricks = await made({ name: "Lakehouse", options: {
    type: "databricks", host: "h", http_path: "/p", catalog: "c", schema: "s", token: secrets.token, client_id: "id", client_secret: secrets.clientSecret,
  } });
  expect((await api.patch(`/v1/connections/${databricks}`, { options: { token: secrets.patchedToken } })).status).toBe(200);
  const hook = await api.post<Json>("/v1/webhook_endpoints", { url: "https://hooks.example.com/a", enabled_events: ["resource.errored"] });
  const signing = (await api.control<Json>("GET", `/webhook_endpoints/${String(hook.body.id)}/secret`)).body.secret as string;
  // Every credential is answered as the placeholder.
  for (const c of (await api.get<Json[]>("/v1/connections")).body) expect(JSON.stringify(c.options)).not.toMatch(/-pw-|dapi|PRIVATE|client-secret/);
  return [API_KEY, signing, ...Object.values(secrets)];
}

describe("the data directory", () => {
  it("holds no credential after creates, patches and rotations, and is the owner's only, running and stopped", async () => {
    const dir = dataDir();
    const api = await emulator({ dataDir: dir, apiKey: API_KEY });
    let credentials: string[] = [];
    try {
      credentials = await write(api);
      // Running: the write-ahead log holds the latest writes.
      expect(files(dir).map((f) => f.path.slice(dir.length + 1)).sort()).toEqual(["emulator.sqlite", "emulator.sqlite-shm", "emulator.sqlite-wal"]);
      // Keys are stored salted: not even the key's plain hash is there.
      expect(found(dir, [...credentials, sha256(API_KEY)])).toEqual([]);
      expect(mode(dir)).toBe("700");
      for (const f of files(dir)) expect([f.path, mode(f.path)]).toEqual([f.path, "600"]);
      // Nor does the request log.
      expect(JSON.stringify((await api.control("GET", "/requests")).body)).not.toMatch(/-pw-|dapi|PRIVATE|client-secret|aud_datadir/);
    } finally {
      await api.close();
    }
    expect(found(dir, credentials)).toEqual([]);
    for (const f of files(dir)) expect([f.path, mode(f.path)]).toEqual([f.path, "600"]);
  });

  it("written by an older emulator with credentials in the clear is cleaned when opened", async () => {
    const dir = dataDir();
    let id = "";
    {
      const api = await emulator({ dataDir: dir, apiKey: API_KEY });
      id = String((await api.post<Json>("/v1/connections", { name: "Old", options: {
        type: "postgres", host: "h", port: 5432, database: "d", schema: "s", user: "u", password: "placeholder-pw",
      } })).body.id);
      await api.close();
    }
    // What an older emulator left: a PATCHed password in the clear and the webhook signing key on disk.
    const { DatabaseSync } = createRequire(import.meta.url)("node:sqlite") as typeof import("node:sqlite");
    const db = new DatabaseSync(join(dir, "emulator.sqlite"));
    const row = db.prepare("SELECT value FROM records WHERE kind = 'resource' AND key = ?").get(`connections/${id}`) as { value: string };
    db.prepare("UPDATE records SET value = ? WHERE kind = 'resource' AND key = ?").run(row.value.replace("<secret>", secrets.patched), `connections/${id}`);
    db.prepare("INSERT INTO records (kind, key, value) VALUES ('secret', 'webhooks', ?)").run(JSON.stringify("legacy-signing-key-1234"));
    const account = (db.prepare("SELECT value FROM records WHERE kind = 'setting' AND key = 'default_account'").get() as { value: string }).value;
    db.prepare("INSERT INTO records (kind, key, value) VALUES ('key', ?, ?)").run(sha256("legacy-api-key"), JSON.stringify({ account_id: JSON.parse(account), expires_at: null }));
    db.close();
    expect(found(dir, [secrets.patched, "legacy-signing-key-1234", sha256("legacy-api-key")])).toHaveLength(3);
    // ...readable by everyone, as older emulators left it.
    chmodSync(dir, 0o755);
    for (const f of files(dir)) chmodSync(f.path, 0o644);

    const api = await emulator({ dataDir: dir, apiKey: API_KEY });
    try {
      expect((await api.get<Json>(`/v1/connections/${id}`)).body.options).toMatchObject({ password: "<secret>" });
      expect(found(dir, [secrets.patched, "legacy-signing-key-1234"])).toEqual([]);
      // A key stored unsalted still opens its account, and is stored salted from then on.
      expect((await api.get("/v1/accounts/current", "legacy-api-key")).status).toBe(200);
      expect((await api.get("/v1/accounts/current", "legacy-api-key")).status).toBe(200);
    } finally {
      await api.close();
    }
    expect(found(dir, [secrets.patched, "legacy-signing-key-1234", API_KEY, sha256("legacy-api-key"), "legacy-api-key"])).toEqual([]);
    expect(mode(dir)).toBe("700");
    for (const f of files(dir)) expect([f.path, mode(f.path)]).toEqual([f.path, "600"]);
  });
});
