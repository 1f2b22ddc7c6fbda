// The emulated service's state: accounts and their keys, resources (wire documents), usage and the outbox,
// all kept in the durable record store. HTTP concerns live in routes/ and the family modules; this module is the
// model, reading each family's secrets and references from the contract and its quirks from the modules handed in.
import { createHash, createHmac, randomBytes } from "node:crypto";
import { SECRET_PLACEHOLDER, valuesAt, visitPath, type AccountFeature, type FamilyDef } from "pulumi-audience/sdk/contract";
import type { FamilyRegistry } from "./family.ts";
import { ResourceIndex } from "./resource-index.ts";
import { newId } from "./ids.ts";
import { copyJson } from "./json.ts";
import { RecordStore } from "./store.ts";

export type Doc = Record<string, unknown>;

export interface Account {
  id: string;
  name: string;
  parent_id: string | null;
  owner_email: string;
  /** Maximum number of resources per collection; collections not named use DEFAULT_QUOTA. */
  quotas: Record<string, number>;
  /** Early-access features, e.g. "forecasts". */
  early_access: string[];
  identity_graph: string | null;
  contract_started_at: string;
  created_at: string;
  updated_at?: string;
  branding?: Record<string, unknown> | null;
  /** Set by DELETE /accounts/{id}: deletion happens after a waiting period. */
  deletion_requested_at?: string;
}

export interface BuildState {
  /** Epoch ms at which the build takes its next step; absent when it waits for a manual advance. */
  due?: number;
  /** Total duration of a timed build in ms. */
  duration?: number;
  /** A timed build waiting for its upstream. */
  held?: boolean;
}

export interface StoredResource {
  account_id: string;
  collection: string;
  doc: Doc;
  build?: BuildState;
}

export interface OutboxMessage {
  id: string;
  account_id: string;
  to: string;
  subject: string;
  text: string;
  resource_type: string;
  resource_id: string;
  sent_at: string;
}

export const DEFAULT_QUOTA = 1000;

let nowMs = Number.NaN;
let nowText = "";
/** The time as the service writes it; a request asks several times within the same millisecond. */
export function now(): string {
  const ms = Date.now();
  if (ms !== nowMs) nowText = new Date((nowMs = ms)).toISOString();
  return nowText;
}

/** How keys were stored before they were salted; such records move to the salted form when first used. */
const unsaltedHash = (key: string) => createHash("sha256").update(key).digest("hex");
export const newApiKey = () => `aud_${randomBytes(24).toString("hex")}`;
/** How many keys' hashes are remembered; more keys than this start over (random keys sent cannot grow memory). */
const KEY_HASHES_KEPT = 1000;
const resourceKey = (collection: string, id: string) => `${collection}/${id}`;

/** Replaces every credential member of a document by the `<secret>` placeholder. */
export function maskSecrets(family: FamilyDef | undefined, doc: Doc): Doc {
  for (const path of family?.secrets ?? []) {
    visitPath(doc, path, (value, _at, set) => {
      if (value !== null && value !== undefined) set(SECRET_PLACEHOLDER);
    });
  }
  return doc;
}

/** A copy of `doc` with its secrets masked: only the objects and arrays on the way to a secret are copied, the rest
 * is shared with `doc`, which stays as it is. */
export function maskedCopy(family: FamilyDef | undefined, doc: Readonly<Doc>): Doc {
  const paths = family?.secrets ?? [];
  return maskSecrets(family, paths.reduce<Doc>((copy, path) => copiedAlong(copy, path.split(".")) as Doc, { ...doc }));
}

/** `node` (already a copy) with the objects and arrays on `path` (`a.b[].c`) copied, so that setting at the path
 * leaves the original alone. */
function copiedAlong(node: unknown, path: string[]): unknown {
  const [part, ...rest] = path;
  if (part === undefined || (rest.length === 0 && !part.endsWith("[]"))) return node;
  const key = part.replace(/\[\]$/, "");
  if (typeof node !== "object" || node === null || Array.isArray(node)) return node;
  const child = (node as Doc)[key];
  if (typeof child !== "object" || child === null) return node;
  const copy = (value: unknown) => (typeof value === "object" && value !== null ? copiedAlong(Array.isArray(value) ? [...value] : { ...value }, rest) : value);
  (node as Doc)[key] = part.endsWith("[]") && Array.isArray(child) ? child.map(copy) : copy(child);
  return node;
}

export class ServiceState {
  readonly store: RecordStore;
  /** The contract's families with the emulator modules handed in. */
  readonly families: FamilyRegistry;
  readonly #index: ResourceIndex;
  #keyHashes = { salt: "", hashes: new Map<string, string>() };

  constructor(store: RecordStore, families: FamilyRegistry) {
    this.store = store;
    this.families = families;
    // Scrubbed before the index reads the store, so it indexes what is kept.
    this.scrub();
    this.#index = new ResourceIndex((r) => ({
      named: this.referencesOf(r, false).map((u) => u.id),
      owners: this.referencesOf(r, true).map((u) => u.id),
    }));
    // What a data directory held, in creation order; from then on the store tells the index of every change.
    const stored = store.entries<StoredResource>("resource").sort(([, a], [, b]) => String(a.doc.created_at).localeCompare(String(b.doc.created_at)));
    for (const [key, r] of stored) this.#index.change(key, r, undefined);
    store.watch("resource", (key, value, previous) => this.#index.change(key, value as StoredResource | undefined, previous as StoredResource | undefined));
  }

  /**
   * A data directory written before every write path masked credentials may hold some: they are masked, the
   * webhook signing key is dropped (it lives in memory now), and the files are rewritten without the old bytes.
   */
  private scrub(): void {
    let changed = false;
    this.store.transaction(() => {
      for (const [key, resource] of this.store.entries<StoredResource>("resource")) {
        const masked = maskSecrets(this.families.of(resource.collection), copyJson(resource.doc));
        if (JSON.stringify(masked) === JSON.stringify(resource.doc)) continue;
        this.store.set("resource", key, { ...resource, doc: masked });
        changed = true;
      }
      for (const [key] of this.store.entries("secret")) {
        this.store.delete("secret", key);
        changed = true;
      }
    });
    if (changed) this.store.compact();
  }

  // Accounts and keys

  /** The features set on an account that some members need: an identity graph, or one a family's resource gives. */
  accountFeatures(accountId: string): Set<AccountFeature> {
    const features = new Set<AccountFeature>();
    if (this.account(accountId)?.identity_graph != null) features.add("identity_graph");
    for (const family of this.families.all()) {
      const feature = family.emulator.accountFeature;
      if (feature === undefined) continue;
      for (const _resource of this.eachResource(accountId, family.collection)) {
        features.add(feature);
        break;
      }
    }
    return features;
  }

  account(id: string): Account | undefined {
    return this.store.get<Account>("account", id);
  }

  accounts(): Account[] {
    return this.store.values<Account>("account");
  }

  /** The account and every account below it in the hierarchy. */
  isSelfOrDescendant(ancestorId: string, accountId: string): boolean {
    for (let a = this.account(accountId); a; a = a.parent_id ? this.account(a.parent_id) : undefined) {
      if (a.id === ancestorId) return true;
    }
    return false;
  }

  createAccount(input: { name: string; parent_id?: string | null; quotas?: Record<string, number>; early_access?: string[];
    owner_email?: string; id?: string }): Account {
    const id = input.id ?? newId();
    const account: Account = {
      id, name: input.name, parent_id: input.parent_id ?? null,
      owner_email: input.owner_email ?? `owner+${id.slice(0, 8)}@example.com`,
      quotas: input.quotas ?? {}, early_access: input.early_access ?? [], identity_graph: null,
      contract_started_at: now(), created_at: now(),
    };
    this.store.transaction(() => {
      this.store.set("account", id, account);
      this.seed(account);
    });
    return account;
  }

  /** What a new account starts with: each family's seed (classic cohorts, the forecast of early access). */
  private seed(account: Account): void {
    for (const family of this.families.all()) family.emulator.seed?.(this, account);
  }

  /**
   * A key's stored form: an HMAC under the state's own random salt, so a key chosen by hand (`--api-key`) cannot
   * be looked up from its hash in a table of common keys.
   */
  private keyHash(key: string): string {
    let salt = this.setting<string>("key_salt");
    if (salt === undefined) this.setSetting("key_salt", (salt = randomBytes(16).toString("hex")));
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
  addKey(accountId: string, key: string = newApiKey(), expiresAt: string | null = null): string {
    this.store.set("key", this.keyHash(key), { account_id: accountId, expires_at: expiresAt });
    return key;
  }

  keyRecord(key: string): { account_id: string; expires_at: string | null } | undefined {
    type KeyRecord = { account_id: string; expires_at: string | null };
    const found = this.store.get<KeyRecord>("key", this.keyHash(key));
    if (found) return found;
    const legacy = this.store.get<KeyRecord>("key", unsaltedHash(key));
    if (legacy) {
      this.store.transaction(() => {
        this.store.delete("key", unsaltedHash(key));
        this.store.set("key", this.keyHash(key), legacy);
      });
    }
    return legacy;
  }

  // Resources

  resource(collection: string, id: string): StoredResource | undefined {
    const found = this.store.get<StoredResource>("resource", resourceKey(collection, id));
    return found && copyJson(found);
  }

  /** Whether an account may read and change a resource: its own, or one its family shares with it. */
  canAccess(resource: StoredResource, accountId: string): boolean {
    if (resource.account_id === accountId) return true;
    return this.families.of(resource.collection)?.emulator.sharedWith?.(resource.doc, accountId) ?? false;
  }

  /** The account's resources of a collection, oldest first (copies). */
  resources(accountId: string, collection: string, options: { archived?: boolean } = {}): StoredResource[] {
    return [...this.eachResource(accountId, collection, options)].map((r) => copyJson(r));
  }

  /** Like resources(), but the stored documents themselves, one at a time: copy what is kept or changed. */
  *eachResource(accountId: string, collection: string, options: { archived?: boolean } = {}): Iterable<Readonly<StoredResource>> {
    for (const r of this.#index.collection(collection)) {
      if (this.canAccess(r, accountId) && (options.archived ?? false) === (r.doc.archived_at != null)) yield r;
    }
  }

  /** The account's resources of a collection among `ids`, oldest first (the stored ones: copy what is kept or changed). */
  resourcesById(accountId: string, collection: string, ids: Iterable<string>, options: { archived?: boolean } = {}): Readonly<StoredResource>[] {
    return this.#index.byIds(ids)
      .filter((r) => r.collection === collection && this.canAccess(r, accountId) && (options.archived ?? false) === (r.doc.archived_at != null));
  }

  /** Every resource of an account, archived or not. */
  allResources(accountId: string): StoredResource[] {
    return this.#index.inOrder([...this.#index.all()].filter((r) => r.account_id === accountId)).map((r) => copyJson(r));
  }

  /** Whether `value` is a stored document itself (not a copy): such a document is never changed in place. */
  isStoredDoc(value: unknown): value is Readonly<Doc> {
    if (typeof value !== "object" || value === null) return false;
    const id = (value as Doc).id;
    return typeof id === "string" && this.#index.byId(id)?.doc === value;
  }

  /** Resources of a collection counting against the account's quota: all but the service's own. */
  quotaUsed(accountId: string, collection: string): number {
    return this.#index.count(accountId, collection);
  }

  /** Resources with a build under way (any account), oldest first (copies). */
  building(): StoredResource[] {
    return this.#index.building().map((r) => copyJson(r));
  }

  /** Stores a resource; its credentials are kept only as `<secret>` (masked in place). */
  save(resource: StoredResource): void {
    maskSecrets(this.families.of(resource.collection), resource.doc);
    this.store.set("resource", resourceKey(resource.collection, String(resource.doc.id)), resource);
  }

  remove(collection: string, id: string): void {
    this.store.delete("resource", resourceKey(collection, id));
  }

  /** Stores a new document with the common members filled in; answers it as stored (the caller's to change). */
  insert(accountId: string, collection: string, fields: Doc): Doc {
    const at = now();
    const doc: Doc = {
      id: newId(), created_at: at, updated_at: at, resource_type: collection, status: "new",
      status_changed_at: at, status_error: null, archived_at: null, last_read_input_at: null,
      last_updated_config_at: at, last_updated_output_at: null, ...fields,
    };
    if (doc.status === "ready") doc.last_updated_output_at = at;
    this.save({ account_id: accountId, collection, doc });
    return doc;
  }

  // Dependency graph, from the contract's references

  /** Resources named by `doc`'s reference members, with the member path that names them. */
  upstreamOf(resource: StoredResource): { at: string; collection: string; id: string }[] {
    return this.referencesOf(resource, false);
  }

  /** Resources that are part of `id` (an atlas's locations): removed with it. */
  ownedBy(accountId: string, id: string): StoredResource[] {
    return this.#index.ownedBy(id).filter((r) => r.account_id === accountId).map((r) => copyJson(r));
  }

  private referencesOf(resource: StoredResource, owned: boolean): { at: string; collection: string; id: string }[] {
    const out: { at: string; collection: string; id: string }[] = [];
    for (const ref of this.families.of(resource.collection)?.references ?? []) {
      if ((ref.owned ?? false) !== owned) continue;
      for (const { at, value } of valuesAt(resource.doc, ref.path)) out.push({ at, collection: ref.collection, id: value });
    }
    return out;
  }

  /** Resources of the account that reference `id` directly. */
  downstreamOf(accountId: string, id: string): StoredResource[] {
    return this.#index.namedBy(id).filter((r) => r.account_id === accountId).map((r) => copyJson(r));
  }

  /** Everything reachable downstream (or upstream) of `id`, nearest first, without repeats. */
  closure(accountId: string, id: string, direction: "downstream" | "upstream"): StoredResource[] {
    const seen = new Set([id]);
    const out: StoredResource[] = [];
    const queue = [id];
    while (queue.length > 0) {
      const current = queue.shift() as string;
      const next = direction === "downstream"
        ? this.downstreamOf(accountId, current)
        : this.upstreamResources(accountId, current);
      for (const r of next) {
        const rid = String(r.doc.id);
        if (seen.has(rid)) continue;
        seen.add(rid);
        out.push(r);
        queue.push(rid);
      }
    }
    return out;
  }

  private upstreamResources(accountId: string, id: string): StoredResource[] {
    const self = this.#index.byId(id);
    if (self?.account_id !== accountId) return [];
    return this.upstreamOf(self).map((u) => this.resource(u.collection, u.id)).filter((r): r is StoredResource => r?.account_id === accountId);
  }

  // Usage and outbox

  addUsage(accountId: string, metric: string, n = 1): void {
    const usage = this.store.get<Record<string, number>>("usage", accountId) ?? {};
    this.store.set("usage", accountId, { ...usage, [metric]: (usage[metric] ?? 0) + n });
  }

  usage(accountId: string): Record<string, number> {
    return { ...(this.store.get<Record<string, number>>("usage", accountId) ?? {}) };
  }

  send(message: Omit<OutboxMessage, "id" | "sent_at">): void {
    const sent_at = now();
    const key = `${Date.now().toString().padStart(15, "0")}-${newId()}`;
    this.store.set("outbox", key, { id: newId(), sent_at, ...message });
  }

  outbox(): OutboxMessage[] {
    return this.store.entries<OutboxMessage>("outbox").sort(([a], [b]) => a.localeCompare(b)).map(([, m]) => m);
  }

  setting<T>(name: string): T | undefined {
    return this.store.get<T>("setting", name);
  }

  setSetting(name: string, value: unknown): void {
    this.store.set("setting", name, value);
  }
}
