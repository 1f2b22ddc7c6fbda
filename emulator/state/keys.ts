// API keys: each stored only as its salted hash, with the account it opens and when it expires.
import { createHash, createHmac, randomBytes } from "node:crypto";
import type { RecordStore } from "../store.ts";
import type { Settings } from "./settings.ts";

/** How keys were stored before they were salted; such records move to the salted form when first used. */
const unsaltedHash = (key: string) => createHash("sha256").update(key).digest("hex");
export const newApiKey = () => `aud_${randomBytes(24).toString("hex")}`;
/** How many keys' hashes are remembered; more keys than this start over (random keys sent cannot grow memory). */
const KEY_HASHES_KEPT = 1000;

export class Keys {
  readonly #store: RecordStore;
  readonly #settings: Settings;
  #keyHashes = { salt: "", hashes: new Map<string, string>() };

  constructor(store: RecordStore, settings: Settings) {
    this.#store = store;
    this.#settings = settings;
  }

  /**
   * A key's stored form: an HMAC under the state's own random salt, so a key chosen by hand (`--api-key`) cannot
   * be looked up from its hash in a table of common keys.
   */
  private keyHash(key: string): string {
    let salt = this.#settings.get<string>("key_salt");
    if (salt === undefined) this.#settings.set("key_salt", (salt = randomBytes(16).toString("hex")));
    // Every request presents its key: the hashes of recent keys are remembered (in memory only) under their salt.
    if (this.#keyHashes.salt !== salt) this.#keyHashes = { salt, hashes: new Map() };
    const { hashes } = this.#keyHashes;
    let hash = hashes.get(key);
    if (hash === undefined) {
      hash = createHmac("sha256", salt).update(key).digest("hex");
      if (hashes.size >= KEY_HASHES_KEPT) hashes.clear();
      hashes.set(key, hash);
    }
    return hash;
  }

  /** Adds a key to an account; only its salted hash is stored. */
  add(accountId: string, key: string = newApiKey(), expiresAt: string | null = null): string {
    this.#store.set("key", this.keyHash(key), { account_id: accountId, expires_at: expiresAt });
    return key;
  }

  record(key: string): { account_id: string; expires_at: string | null } | undefined {
    type KeyRecord = { account_id: string; expires_at: string | null };
    const found = this.#store.get<KeyRecord>("key", this.keyHash(key));
    if (found) return found;
    const legacy = this.#store.get<KeyRecord>("key", unsaltedHash(key));
    if (legacy) {
      this.#store.transaction(() => {
        this.#store.delete("key", unsaltedHash(key));
        this.#store.set("key", this.keyHash(key), legacy);
      });
    }
    return legacy;
  }
}
