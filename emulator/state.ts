// The emulated service's state: accounts and their keys, resources (wire documents), usage and the outbox,
// all kept in the durable record store. HTTP concerns live in routes/; this module is the model.
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { SECRET_PLACEHOLDER, valuesAt, visitPath, type FamilyDef } from "pulumi-audience/sdk/contract";
import { familyOf } from "./families/index.ts";
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

export const now = () => new Date().toISOString();

const hashKey = (key: string) => createHash("sha256").update(key).digest("hex");
export const newApiKey = () => `aud_${randomBytes(24).toString("hex")}`;
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

export class ServiceState {
  readonly store: RecordStore;

  constructor(store: RecordStore) {
    this.store = store;
  }

  // Accounts and keys

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
    const id = input.id ?? randomUUID();
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

  /** What a new account starts with: classic cohorts and, with early access, the forecast. */
  private seed(account: Account): void {
    for (const name of ["Leads", "Customers"]) {
      this.insert(account.id, "cohorts", { name, explore: false, classic: true, managed: true, status: "ready" });
    }
    if (account.early_access.includes("forecasts")) this.seedForecast(account.id, "Forecasted spend");
  }

  seedForecast(accountId: string, name: string): Doc {
    return this.insert(accountId, "forecasts", { name, managed: true, status: "ready" });
  }

  /** Adds a key to an account; only its hash is stored. */
  addKey(accountId: string, key: string = newApiKey(), expiresAt: string | null = null): string {
    this.store.set("key", hashKey(key), { account_id: accountId, expires_at: expiresAt });
    return key;
  }

  keyRecord(key: string): { account_id: string; expires_at: string | null } | undefined {
    return this.store.get("key", hashKey(key));
  }

  // Resources

  resource(collection: string, id: string): StoredResource | undefined {
    const found = this.store.get<StoredResource>("resource", resourceKey(collection, id));
    return found && structuredClone(found);
  }

  /** Whether an account may read and change a resource: its own, or one its family shares with it. */
  canAccess(resource: StoredResource, accountId: string): boolean {
    if (resource.account_id === accountId) return true;
    return familyOf(resource.collection)?.emulator.sharedWith?.(resource.doc, accountId) ?? false;
  }

  /** An account's resources of a family, archived or not, optionally only those ids (chosen before copying). */
  resources(accountId: string, collection: string, options: { archived?: boolean; ids?: ReadonlySet<string> } = {}): StoredResource[] {
    return this.store.values<StoredResource>("resource", `${collection}/`)
      .filter((r) => this.canAccess(r, accountId) && (options.archived ?? false) === (r.doc.archived_at != null) && (!options.ids || options.ids.has(String(r.doc.id))))
      .sort((a, b) => String(a.doc.created_at).localeCompare(String(b.doc.created_at)))
      .map((r) => structuredClone(r));
  }

  /** Every resource of an account, archived or not. */
  allResources(accountId: string): StoredResource[] {
    return this.store.values<StoredResource>("resource").filter((r) => r.account_id === accountId).map((r) => structuredClone(r));
  }

  count(accountId: string, collection: string): number {
    return this.store.values<StoredResource>("resource", `${collection}/`).filter((r) => r.account_id === accountId).length;
  }

  save(resource: StoredResource): void {
    this.store.set("resource", resourceKey(resource.collection, String(resource.doc.id)), resource);
  }

  remove(collection: string, id: string): void {
    this.store.delete("resource", resourceKey(collection, id));
  }

  /** Stores a new document with the common members filled in; credentials are kept only as `<secret>`. */
  insert(accountId: string, collection: string, fields: Doc): Doc {
    const at = now();
    const doc: Doc = {
      id: randomUUID(), created_at: at, updated_at: at, resource_type: collection, status: "new",
      status_changed_at: at, status_error: null, archived_at: null, last_read_input_at: null,
      last_updated_config_at: at, last_updated_output_at: null, ...fields,
    };
    if (doc.status === "ready") doc.last_updated_output_at = at;
    this.save({ account_id: accountId, collection, doc: maskSecrets(familyOf(collection), doc) });
    return doc;
  }

  // Dependency graph, from the contract's references

  /** Resources named by `doc`'s reference members, with the member path that names them. */
  upstreamOf(resource: StoredResource): { at: string; collection: string; id: string }[] {
    return this.referencesOf(resource, false);
  }

  /** Resources that are part of `id` (an atlas's locations): removed with it. */
  ownedBy(accountId: string, id: string): StoredResource[] {
    return this.allResources(accountId).filter((r) => this.referencesOf(r, true).some((u) => u.id === id));
  }

  private referencesOf(resource: StoredResource, owned: boolean): { at: string; collection: string; id: string }[] {
    const out: { at: string; collection: string; id: string }[] = [];
    for (const ref of familyOf(resource.collection)?.references ?? []) {
      if ((ref.owned ?? false) !== owned) continue;
      for (const { at, value } of valuesAt(resource.doc, ref.path)) out.push({ at, collection: ref.collection, id: value });
    }
    return out;
  }

  /** Resources of the account that reference `id` directly. */
  downstreamOf(accountId: string, id: string): StoredResource[] {
    return this.allResources(accountId).filter((r) => this.upstreamOf(r).some((u) => u.id === id));
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
    const self = this.allResources(accountId).find((r) => r.doc.id === id);
    if (!self) return [];
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
    const key = `${Date.now().toString().padStart(15, "0")}-${randomUUID()}`;
    this.store.set("outbox", key, { id: randomUUID(), sent_at, ...message });
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
