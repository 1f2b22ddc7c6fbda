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
/** The keys of keyCache already derived, for a caller that cannot wait. */
const keysDerived = new Map<string, Buffer>();

export class PassphraseError extends Error {
  override name = "PassphraseError";
}

/** A crypter whose salt state is known: one opened by `open`, which made or checked it. */
export type OpenCrypter = PassphraseCrypter & { readonly saltState: string };

/**
 * The key is derived (about a second of CPU, by design) only when a secret is first sealed or opened, or when
 * `unlock` is awaited: a stack that holds no secret never pays for it. A new stack's salt state, which carries a
 * secret made with the key, exists from then on.
 */
export class PassphraseCrypter {
  readonly #passphrase: string;
  readonly #salt: Buffer;
  /** The salt state's sealed check; undefined for a new salt, whose check is made with the key. */
  #saltState: string | undefined;
  #key: Buffer | undefined;

  private constructor(passphrase: string, salt: Buffer, saltState: string | undefined) {
    this.#passphrase = passphrase;
    this.#salt = salt;
    this.#saltState = saltState;
  }

  /** Opens an existing salt state (from a state file or a stack's `encryptionsalt`), or makes a new one: the key derived and the passphrase checked. */
  static async open(passphrase: string, saltState?: string): Promise<OpenCrypter> {
    const crypter = PassphraseCrypter.lazy(passphrase, saltState);
    await crypter.unlock();
    return crypter as OpenCrypter;
  }

  /** As `open`, but nothing derived or checked until a secret is sealed or opened, or `unlock` is awaited. */
  static lazy(passphrase: string, saltState?: string): PassphraseCrypter {
    if (saltState === undefined) return new PassphraseCrypter(passphrase, randomBytes(8), undefined);
    const parts = saltState.split(":");
    if (parts.length !== 5 || parts[0] !== "v1" || !parts[1]) throw new PassphraseError(`malformed encryption salt "${saltState}": expected v1:<salt>:v1:<nonce>:<ciphertext>`);
    return new PassphraseCrypter(passphrase, Buffer.from(parts[1], "base64"), saltState);
  }

  /** The salt state, once there is one: undefined for a new salt until a secret is sealed with it. */
  get saltState(): string | undefined {
    return this.#saltState;
  }

  /** Derives the key on libuv's thread pool and checks the passphrase with it. */
  async unlock(): Promise<void> {
    if (this.#key) return;
    this.#accept(await deriveKey(this.#passphrase, this.#salt));
  }

  /** The key, derived here and now (blocking) if no one derived it before. */
  #keyNow(): Buffer {
    if (!this.#key) this.#accept(keysDerived.get(keyId(this.#passphrase, this.#salt)) ?? deriveKeyNow(this.#passphrase, this.#salt));
    return this.#key!;
  }

  /** Takes a derived key: a new salt gets its check sealed with it; an existing one must open with it. */
  #accept(key: Buffer): void {
    if (this.#key) return;
    if (this.#saltState === undefined) {
      this.#saltState = `v1:${this.#salt.toString("base64")}:${seal(key, CHECK_PLAINTEXT)}`;
      this.#key = key;
      return;
    }
    let check: string | undefined;
    try {
      check = unseal(key, this.#saltState.split(":").slice(2).join(":"));
    } catch {
      // wrong key: reported below
    }
    if (check !== CHECK_PLAINTEXT) throw new PassphraseError("incorrect passphrase: it does not open this stack's secrets (PULUMI_CONFIG_PASSPHRASE)");
    this.#key = key;
  }

  encrypt(plaintext: string): string {
    return seal(this.#keyNow(), plaintext);
  }

  decrypt(ciphertext: string): string {
    return unseal(this.#keyNow(), ciphertext);
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

function seal(key: Buffer, plaintext: string): string {
  const nonce = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, nonce);
  const sealed = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final(), cipher.getAuthTag()]);
  return `v1:${nonce.toString("base64")}:${sealed.toString("base64")}`;
}

function unseal(key: Buffer, ciphertext: string): string {
  const [version, nonce, sealed] = ciphertext.split(":");
  if (version !== "v1" || !nonce || !sealed) throw new PassphraseError("malformed ciphertext: expected v1:<nonce>:<ciphertext>");
  const bytes = Buffer.from(sealed, "base64");
  if (bytes.length < 16) throw new PassphraseError("malformed ciphertext: too short");
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(nonce, "base64"));
  decipher.setAuthTag(bytes.subarray(bytes.length - 16));
  try {
    return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - 16)), decipher.final()]).toString("utf8");
  } catch {
    throw new PassphraseError("cannot decrypt a secret: wrong passphrase or corrupted ciphertext");
  }
}

const keyId = (passphrase: string, salt: Buffer) => createHash("sha256").update(salt).update("\0").update(passphrase).digest("hex");

function deriveKey(passphrase: string, salt: Buffer): Promise<Buffer> {
  // The derivation takes about a second by design; runs in one process reuse it.
  const id = keyId(passphrase, salt);
  let key = keyCache.get(id);
  if (!key) {
    key = derive(passphrase, salt, ROUNDS, 32, "sha256");
    key.then((derived) => keysDerived.set(id, derived), () => undefined);
    keyCache.set(id, key);
  }
  return key;
}

/** The key at once, blocking, for a secret sealed or opened before anyone awaited `unlock`. */
function deriveKeyNow(passphrase: string, salt: Buffer): Buffer {
  const key = crypto.pbkdf2Sync(passphrase, salt, ROUNDS, 32, "sha256");
  const id = keyId(passphrase, salt);
  keysDerived.set(id, key);
  keyCache.set(id, Promise.resolve(key));
  return key;
}
