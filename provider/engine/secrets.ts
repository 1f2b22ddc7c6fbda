// Pulumi's passphrase secrets provider: PBKDF2-SHA256 (1,000,000 rounds, 8-byte salt) to an AES-256-GCM key;
// ciphertext "v1:<nonce>:<sealed+tag>"; the salt state "v1:<salt>:<ciphertext of 'pulumi'>" checks the passphrase.
import crypto, { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { SECRET_SIG, SIG_KEY, isSecret, type Value } from "../protocol/values.ts";

/** PBKDF2 on libuv's thread pool, looked up on node:crypto when called. */
const derive = (passphrase: string, salt: Buffer, rounds: number, length: number, digest: string) =>
  new Promise<Buffer>((resolve, reject) => crypto.pbkdf2(passphrase, salt, rounds, length, digest, (error, key) => (error ? reject(error) : resolve(key))));
const ROUNDS = 1_000_000;
const CHECK_PLAINTEXT = "pulumi";
const keyCache = new Map<string, Promise<Buffer>>();

export class PassphraseError extends Error {
  override name = "PassphraseError";
}

export class PassphraseCrypter {
  readonly saltState: string;
  readonly #key: Buffer;

  private constructor(key: Buffer, saltState: string) {
    this.#key = key;
    this.saltState = saltState;
  }

  /** Opens an existing salt state (from a state file or a stack's `encryptionsalt`), or makes a new one. */
  static async open(passphrase: string, saltState?: string): Promise<PassphraseCrypter> {
    if (saltState === undefined) {
      const salt = randomBytes(8);
      const key = await deriveKey(passphrase, salt);
      const check = new PassphraseCrypter(key, "").encrypt(CHECK_PLAINTEXT);
      return new PassphraseCrypter(key, `v1:${salt.toString("base64")}:${check}`);
    }
    const parts = saltState.split(":");
    if (parts.length !== 5 || parts[0] !== "v1" || !parts[1]) throw new PassphraseError(`malformed encryption salt "${saltState}": expected v1:<salt>:v1:<nonce>:<ciphertext>`);
    const crypter = new PassphraseCrypter(await deriveKey(passphrase, Buffer.from(parts[1], "base64")), saltState);
    let check: string | undefined;
    try {
      check = crypter.decrypt(parts.slice(2).join(":"));
    } catch {
      // wrong key: reported below
    }
    if (check !== CHECK_PLAINTEXT) throw new PassphraseError("incorrect passphrase: it does not open this stack's secrets (PULUMI_CONFIG_PASSPHRASE)");
    return crypter;
  }

  encrypt(plaintext: string): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.#key, nonce);
    const sealed = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final(), cipher.getAuthTag()]);
    return `v1:${nonce.toString("base64")}:${sealed.toString("base64")}`;
  }

  decrypt(ciphertext: string): string {
    const [version, nonce, sealed] = ciphertext.split(":");
    if (version !== "v1" || !nonce || !sealed) throw new PassphraseError("malformed ciphertext: expected v1:<nonce>:<ciphertext>");
    const bytes = Buffer.from(sealed, "base64");
    if (bytes.length < 16) throw new PassphraseError("malformed ciphertext: too short");
    const decipher = createDecipheriv("aes-256-gcm", this.#key, Buffer.from(nonce, "base64"));
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    try {
      return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - 16)), decipher.final()]).toString("utf8");
    } catch {
      throw new PassphraseError("cannot decrypt a secret: wrong passphrase or corrupted ciphertext");
    }
  }

  /** Replaces every secret with its encrypted form, as `pulumi stack export` shows it. */
  sealValue(v: Value): Value {
    if (isSecret(v)) return { [SIG_KEY]: SECRET_SIG, ciphertext: this.encrypt(JSON.stringify(v.value)) };
    return mapMembers(v, (x) => this.sealValue(x));
  }

  /** The inverse of sealValue: encrypted secrets (and plaintext ones, as an export with secrets shown has them) become in-memory secrets again. */
  openValue(v: Value): Value {
    if (v !== null && typeof v === "object" && !Array.isArray(v)) {
      if (v[SIG_KEY] === SECRET_SIG && typeof v["ciphertext"] === "string") {
        return { [SIG_KEY]: SECRET_SIG, value: JSON.parse(this.decrypt(v["ciphertext"])) as Value };
      }
      if (v[SIG_KEY] === SECRET_SIG && typeof v["plaintext"] === "string") {
        return { [SIG_KEY]: SECRET_SIG, value: this.openValue(JSON.parse(v["plaintext"]) as Value) };
      }
    }
    return mapMembers(v, (x) => this.openValue(x));
  }
}

/**
 * An object's or array's members passed through `fn`: a copy when `fn` changes one, else `v` itself, so that a state's
 * values without secrets (nearly all) are not copied on every load and write.
 */
function mapMembers(v: Value, fn: (x: Value) => Value): Value {
  if (v === null || typeof v !== "object") return v;
  if (Array.isArray(v)) {
    let copy: Value[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const x = fn(v[i]!);
      if (copy) copy.push(x);
      else if (x !== v[i]) (copy = v.slice(0, i)).push(x);
    }
    return copy ?? v;
  }
  // A copy is made at the first member that changes: nothing is allocated for the values without one.
  let copy: { [key: string]: Value } | undefined;
  for (const key of Object.keys(v)) {
    const x = fn(v[key]!);
    if (x !== v[key]) (copy ??= { ...v })[key] = x;
  }
  return copy ?? v;
}

/**
 * Starts deriving the key of a salt state (as `open` will) on libuv's thread pool, so that the derivation, about a
 * second by design, overlaps what the process does until it opens the stack. Kept in memory only; a salt state that
 * is not one is left for `open` to report.
 */
export function startDeriving(passphrase: string, saltState: string): void {
  const salt = saltState.split(":")[1];
  if (salt) deriveKey(passphrase, Buffer.from(salt, "base64")).catch(() => undefined);
}

function deriveKey(passphrase: string, salt: Buffer): Promise<Buffer> {
  // The derivation takes about a second by design; runs in one process reuse it.
  const id = createHash("sha256").update(salt).update("\0").update(passphrase).digest("hex");
  let key = keyCache.get(id);
  if (!key) {
    key = derive(passphrase, salt, ROUNDS, 32, "sha256");
    keyCache.set(id, key);
  }
  return key;
}
