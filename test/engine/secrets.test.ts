// The passphrase secrets provider against salt states made by Pulumi itself, and the property helpers the
// engine uses for secrets, diffs and ignoreChanges.
import crypto, { createCipheriv, pbkdf2Sync, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { PassphraseCrypter, PassphraseError } from "../../provider/engine/index.ts";
import { loadProject, loadStackConfig, programConfigEnv } from "../../provider/engine/project.ts";
import { startDeriving } from "../../provider/engine/secrets.ts";
import { Snapshot } from "../../provider/engine/snapshot.ts";
import type { ResourceState } from "../../provider/engine/state-file.ts";
import { stackConfigSaltState } from "../../provider/engine/stack-files.ts";
import { annotateSecrets, applyIgnoreChanges, changedKeys, makeSecret, SECRET_SIG, SIG_KEY, type Value } from "../../provider/protocol/values.ts";

// From Pulumi's own passphrase manager tests: made with the passphrase "password", and with "".
const PULUMI_SALT = "v1:fozI5u6B030=:v1:F+6ZduKKd8G0/V7L:PGMFeIzwobWRKmEAzUdaQHqC5mMRIQ==";
const PULUMI_EMPTY_SALT = "v1:LVuDkcjhUns=:v1:WPbL+tmbxnqWswQ2:lebZxStyHT3IZkmbN+3xCx9zqtoPog==";


describe("passphrase secrets, as Pulumi's passphrase provider", () => {
  it("opens a salt state Pulumi wrote, with its passphrase only", async () => {
    await expect(PassphraseCrypter.open("password", PULUMI_SALT)).resolves.toBeInstanceOf(PassphraseCrypter);
    await expect(PassphraseCrypter.open("", PULUMI_EMPTY_SALT)).resolves.toBeInstanceOf(PassphraseCrypter);
    await expect(PassphraseCrypter.open("password123", PULUMI_SALT)).rejects.toBeInstanceOf(PassphraseError);
    await expect(PassphraseCrypter.open("password", "fozI5u6B030=:v1:F+6ZduL:PGMFeIzwobWRKmEAzUdaQHqC5mMRIQ==")).rejects.toThrow(/malformed encryption salt/);
  });

  it("seals and opens secrets wherever they sit, copying only what holds one", async () => {
    const crypter = await PassphraseCrypter.open("password", PULUMI_SALT);
    const untouched = { deep: { list: [1, "two", { three: [null] }] } };
    const value = {
      untouched,
      list: ["a", makeSecret("b"), "c", { d: makeSecret(["e"]) }],
      object: { before: 1, secret: makeSecret({ f: 1 }), after: [2] },
      ["__proto__"]: makeSecret("not a prototype"),
    };
    const opened = crypter.openValue(crypter.sealValue(value)) as typeof value;
    expect(opened).toStrictEqual(value);
    expect(Object.getPrototypeOf(opened)).toBe(Object.prototype);
    // Nothing to seal or open: the very same objects, not copies.
    expect(crypter.sealValue(untouched)).toBe(untouched);
    expect(crypter.openValue(untouched)).toBe(untouched);
    const sealed = crypter.sealValue(value) as typeof value;
    expect(sealed.untouched).toBe(untouched);
    expect(sealed.object.after).toBe(value.object.after);
  });

  it("seals secrets with a fresh nonce each time and opens them again", async () => {
    const crypter = await PassphraseCrypter.open("password", PULUMI_SALT);
    const sealed = crypter.sealValue({ plain: 1, token: makeSecret({ nested: ["a", "b"] }) }) as Record<string, Record<string, string>>;
    expect(sealed["plain"]).toBe(1);
    expect(sealed["token"]?.[SIG_KEY]).toBe(SECRET_SIG);
    expect(sealed["token"]?.["ciphertext"]).toMatch(/^v1:[A-Za-z0-9+/=]{16}:[A-Za-z0-9+/=]+$/);
    expect(JSON.stringify(sealed)).not.toContain("nested");
    expect(crypter.encrypt("x")).not.toBe(crypter.encrypt("x"));
    expect(crypter.openValue(sealed)).toEqual({ plain: 1, token: makeSecret({ nested: ["a", "b"] }) });
    const other = await PassphraseCrypter.open("");
    expect(() => other.openValue(sealed)).toThrow(PassphraseError);
  });

  it("decrypts secure values of Pulumi.<stack>.yaml and hands them to the program as secret config", async () => {
    const dir = mkdtempSync(join(tmpdir(), "engine-config-"));
    try {
      const crypter = await PassphraseCrypter.open("password", PULUMI_SALT);
      writeFileSync(join(dir, "Pulumi.yaml"), "name: shop\nruntime: nodejs\nmain: index.ts\n");
      writeFileSync(join(dir, "Pulumi.dev.yaml"), `encryptionsalt: ${PULUMI_SALT}\nconfig:\n  audience:apiKey:\n    secure: ${crypter.encrypt("key-123")}\n  region: eu\n  shop:limits:\n    daily: 5\n`);
      const project = loadProject(dir);
      const { config } = await loadStackConfig(project, "dev", "password");
      const env = programConfigEnv(config);
      expect(JSON.parse(env["PULUMI_CONFIG"]!)).toEqual({ "audience:apiKey": "key-123", "shop:region": "eu", "shop:limits": '{"daily":5}' });
      expect(JSON.parse(env["PULUMI_CONFIG_SECRET_KEYS"]!)).toEqual(["audience:apiKey"]);
      await expect(loadStackConfig(project, "dev", "wrong")).rejects.toBeInstanceOf(PassphraseError);
      await expect(loadStackConfig(project, "dev", undefined)).rejects.toThrow(/PULUMI_CONFIG_PASSPHRASE/);
      // A damaged secure value is named by its key.
      writeFileSync(join(dir, "Pulumi.damaged.yaml"), `encryptionsalt: ${PULUMI_SALT}\nconfig:\n  audience:apiKey:\n    secure: v1:abc:def\n`);
      await expect(loadStackConfig(project, "damaged", "password")).rejects.toThrow(/Pulumi\.damaged\.yaml: "audience:apiKey": malformed ciphertext/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("keys derived early", () => {
  it("a key started early is the one opening the stack uses: derived once", async () => {
    // A salt state as Pulumi's passphrase provider makes one: PBKDF2-SHA256, then "pulumi" sealed with AES-256-GCM.
    const salt = randomBytes(8);
    const nonce = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", pbkdf2Sync("early", salt, 1_000_000, 32, "sha256"), nonce);
    const sealed = Buffer.concat([cipher.update("pulumi", "utf8"), cipher.final(), cipher.getAuthTag()]);
    const saltState = `v1:${salt.toString("base64")}:v1:${nonce.toString("base64")}:${sealed.toString("base64")}`;
    // Derivations counted on node:crypto itself, which the engine calls: unit files share a worker's modules.
    const spy = vi.spyOn(crypto, "pbkdf2");
    const derivations = () => spy.mock.calls.length;
    const before = derivations();
    startDeriving("early", saltState);
    expect(derivations()).toBe(before + 1);
    await expect(PassphraseCrypter.open("early", saltState)).resolves.toBeInstanceOf(PassphraseCrypter);
    expect(derivations()).toBe(before + 1);
    // Not a salt state: nothing starts, and opening it still says what is wrong.
    startDeriving("early", "not-a-salt");
    expect(derivations()).toBe(before + 1);
    spy.mockRestore();
  });

  it("finds the config's salt when the config holds a secure value, which the run opens", () => {
    const dir = mkdtempSync(join(tmpdir(), "engine-salts-"));
    try {
      writeFileSync(join(dir, "Pulumi.yaml"), "name: shop\nruntime: nodejs\nmain: index.ts\n");
      expect(stackConfigSaltState(dir, "dev")).toBeUndefined();
      writeFileSync(join(dir, "Pulumi.dev.yaml"), `config:\n  shop:region: eu\nencryptionsalt: ${PULUMI_SALT}\n`);
      expect(stackConfigSaltState(dir, "dev")).toBeUndefined();
      writeFileSync(join(dir, "Pulumi.dev.yaml"), `config:\n  shop:token:\n    secure: v1:abc:def\nencryptionsalt: ${PULUMI_SALT}\n`);
      expect(stackConfigSaltState(dir, "dev")).toBe(PULUMI_SALT);
      expect(stackConfigSaltState(dir, "other")).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the key derived only for a stack that holds a secret", () => {
  const resource = (name: string, outputs: Record<string, Value> = {}): ResourceState => ({
    urn: `urn:pulumi:dev::shop::pulumi-nodejs:dynamic/shop:Item::${name}`, custom: true, type: "pulumi-nodejs:dynamic/shop:Item",
    id: name, inputs: { name }, outputs: { name, ...outputs }, dependencies: [],
  });
  /** Derivations made meanwhile, on node:crypto itself (async or blocking). */
  const counting = () => {
    const spies = [vi.spyOn(crypto, "pbkdf2"), vi.spyOn(crypto, "pbkdf2Sync")];
    return { count: () => spies.reduce((n, s) => n + s.mock.calls.length, 0), restore: () => spies.forEach((s) => s.mockRestore()) };
  };

  it("a stack without secrets derives none, keeps no salt, and opens with any passphrase", async () => {
    const dir = mkdtempSync(join(tmpdir(), "engine-nokey-"));
    const derivations = counting();
    try {
      const path = join(dir, "dev.json");
      const state = await Snapshot.load(path, "no-secrets passphrase");
      await state.upsert(resource("one"));
      await state.compact();
      await state.close();
      const doc = JSON.parse(readFileSync(path, "utf8")) as { deployment: Record<string, unknown> };
      expect(doc.deployment).not.toHaveProperty("secrets_providers");
      const again = await Snapshot.load(path, "another passphrase");
      expect(again.resources.map((r) => r.id)).toEqual(["one"]);
      await again.close();
      expect(derivations.count()).toBe(0);
    } finally {
      derivations.restore();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a first secret makes the salt, which the state file holds before the journal record sealed with it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "engine-firstkey-"));
    try {
      const path = join(dir, "dev.json");
      const state = await Snapshot.load(path, "first passphrase");
      await state.upsert(resource("plain"));
      expect(JSON.parse(readFileSync(path, "utf8")).deployment).not.toHaveProperty("secrets_providers");
      await state.upsert(resource("vault", { token: makeSecret("t0ken") }));
      await state.close();
      // As after a crash before compacting: the file and its journal.
      expect(readFileSync(`${path}.journal`, "utf8")).not.toContain("t0ken");
      const salt = (JSON.parse(readFileSync(path, "utf8")) as { deployment: { secrets_providers: { state: { salt: string } } } }).deployment.secrets_providers.state.salt;
      expect(salt).toBe(state.crypter.saltState);
      const read = await Snapshot.load(path, "first passphrase");
      expect(read.find(resource("vault").urn)?.outputs["token"]).toEqual(makeSecret("t0ken"));
      await read.close();
      await expect(Snapshot.load(path, "wrong passphrase")).rejects.toThrow(/incorrect passphrase/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a stack with a salt and no secret yet refuses a first secret under the wrong passphrase, before recording it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "engine-wrongkey-"));
    try {
      const path = join(dir, "dev.json");
      const state = await Snapshot.load(path, "password", PULUMI_SALT);
      await state.upsert(resource("plain"));
      await state.compact();
      await state.close();
      const wrong = await Snapshot.load(path, "not the password");
      const urn = resource("vault").urn;
      expect(() => wrong.begin({ type: "creating", resource: { urn, type: resource("vault").type, inputs: { token: makeSecret("t0ken") } } })).toThrow(PassphraseError);
      await wrong.close();
      const read = await Snapshot.load(path, "password");
      expect(read.pending).toEqual([]);
      expect(read.resources.map((r) => r.id)).toEqual(["plain"]);
      await read.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("property helpers", () => {
  it("outputs are secret where the inputs of the same name were", () => {
    const ins = { key: makeSecret("k"), options: { password: makeSecret("p"), host: "h" }, name: "n" };
    const outs = { key: "k", options: { password: "p", host: "h" }, name: "n", id: "1" };
    expect(annotateSecrets(outs, ins)).toEqual({ key: makeSecret("k"), options: { password: makeSecret("p"), host: "h" }, name: "n", id: "1" });
  });

  it("changes are named by their nested paths; secretness alone is no change", () => {
    expect(changedKeys({ a: 1, options: { host: "x", port: 1 }, __provider: "p1" }, { a: makeSecret(1), options: { host: "y", port: 1 }, __provider: "p2" })).toEqual(["options.host"]);
    expect(changedKeys({ list: [1, 2] }, { list: [1, 3], added: true })).toEqual(["added", "list"]);
  });

  it("ignoreChanges puts old values back at nested paths and array indexes", () => {
    const olds = { text: "old", options: { host: "a", tags: ["x", "y"] } };
    const news = { text: "new", options: { host: "b", tags: ["x", "z"] } };
    expect(applyIgnoreChanges(olds, news, ["options.host", 'options["tags"][1]'])).toEqual({ text: "new", options: { host: "a", tags: ["x", "y"] } });
    expect(applyIgnoreChanges(olds, { options: { host: "b" } }, ["text"])).toEqual({ text: "old", options: { host: "b" } });
    expect(() => applyIgnoreChanges(olds, news, ["options..host"])).toThrow(/cannot parse property path/);
  });
});
