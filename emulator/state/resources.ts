// The resources of every account, as wire documents, with their dependency graph from the contract's references.
// Reads go through the index (resource-index.ts), which the store keeps current; credentials are kept only masked.
import { valuesAt } from "pulumi-audience/sdk/contract";
import { now } from "../clock.ts";
import { newId } from "../ids.ts";
import { copyJson } from "../json.ts";
import { maskSecrets } from "../masking.ts";
import type { Doc, KeptFamilies, StoredResource } from "../model.ts";
import { ResourceIndex, type ListFilter } from "../resource-index.ts";
import type { RecordStore } from "../store.ts";

const resourceKey = (collection: string, id: string) => `${collection}/${id}`;

export class Resources {
  readonly store: RecordStore;
  /** What each collection's family says of keeping its resources: secrets, references, sharing. */
  readonly families: KeptFamilies;
  readonly #index: ResourceIndex;

  constructor(store: RecordStore, families: KeptFamilies) {
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

  /**
   * The account's resources of a collection among `ids`, oldest first (the stored ones: copy what is kept or changed).
   * The ids not known to match the id pattern are added to `untested` (ResourceIndex.byIds).
   */
  resourcesById(accountId: string, collection: string, ids: Iterable<string>, options: { archived?: boolean }, untested: string[]): Readonly<StoredResource>[] {
    return this.#index.byIds(ids, this.#listFilter(accountId, collection, options), untested);
  }

  /** Like resourcesById(), but the JSON text of each stored document, kept as textOf() keeps it. */
  textsById(accountId: string, collection: string, ids: Iterable<string>, options: { archived?: boolean }, untested: string[]): string[] {
    return this.#index.textsByIds(ids, this.#listFilter(accountId, collection, options), untested);
  }

  #listFilter(accountId: string, collection: string, options: { archived?: boolean }): ListFilter {
    return { collection, accountId, archived: options.archived ?? false, sharedWith: (r) => this.canAccess(r, accountId) };
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

  /** The JSON text of a stored document itself, made once and kept while it is stored; undefined for any other value. */
  textOf(value: object): string | undefined {
    return this.#index.textOf(value);
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

  /** A new document with the common members filled in, not yet stored. */
  newDoc(collection: string, fields: Doc): Doc {
    const at = now();
    const doc: Doc = {
      id: newId(), created_at: at, updated_at: at, resource_type: collection, status: "new",
      status_changed_at: at, status_error: null, archived_at: null, last_read_input_at: null,
      last_updated_config_at: at, last_updated_output_at: null, ...fields,
    };
    if (doc.status === "ready") doc.last_updated_output_at = at;
    return doc;
  }

  /** Stores a new document with the common members filled in; answers it as stored (the caller's to change). */
  insert(accountId: string, collection: string, fields: Doc): Doc {
    const doc = this.newDoc(collection, fields);
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
}
