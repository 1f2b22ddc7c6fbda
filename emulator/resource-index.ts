// Indexes over the stored resources, kept current from the record store's changes (rolled back ones included):
// each collection in creation order, resources by id, counts per account and collection, who names a resource and
// who owns it, and the builds under way. Requests read through them instead of scanning and copying every
// resource; the documents they hold are the store's own, so callers copy only what they answer.
import type { StoredResource } from "./state.ts";

/** The ids a resource names through its reference members: plain references, or those marking it as part of another. */
export type References = (resource: StoredResource) => { named: string[]; owners: string[] };

const countKey = (accountId: string, collection: string) => `${accountId}\u0000${collection}`;

function addTo(index: Map<string, Set<string>>, id: string, key: string): void {
  let keys = index.get(id);
  if (!keys) index.set(id, (keys = new Set()));
  keys.add(key);
}

function removeFrom(index: Map<string, Set<string>>, id: string, key: string): void {
  const keys = index.get(id);
  keys?.delete(key);
  if (keys?.size === 0) index.delete(id);
}

export class ResourceIndex {
  readonly #references: References;
  /** collection -> store key -> resource, in creation order. */
  readonly #collections = new Map<string, Map<string, StoredResource>>();
  /** Creation order of every stored resource, to sort a few found by id as a listing would. */
  readonly #order = new Map<string, number>();
  #next = 0;
  readonly #keyById = new Map<string, string>();
  /** Resources per account and collection that count against its quota (not the service's own). */
  readonly #counts = new Map<string, number>();
  /** id -> store keys of the resources naming it (named) or being part of it (owned). */
  readonly #namedBy = new Map<string, Set<string>>();
  readonly #ownedBy = new Map<string, Set<string>>();
  readonly #refs = new Map<string, { named: string[]; owners: string[] }>();
  readonly #building = new Set<string>();

  constructor(references: References) {
    this.#references = references;
  }

  /** Applies one change of the store: `value` undefined when the resource was deleted. */
  change(key: string, value: StoredResource | undefined, previous: StoredResource | undefined): void {
    if (previous) this.#forget(key, previous, value !== undefined);
    if (value) this.#add(key, value);
  }

  #add(key: string, r: StoredResource): void {
    let members = this.#collections.get(r.collection);
    if (!members) this.#collections.set(r.collection, (members = new Map()));
    members.set(key, r);
    if (!this.#order.has(key)) this.#order.set(key, this.#next++);
    this.#keyById.set(String(r.doc.id), key);
    if (r.doc.managed !== true) this.#counts.set(countKey(r.account_id, r.collection), (this.#counts.get(countKey(r.account_id, r.collection)) ?? 0) + 1);
    const refs = this.#references(r);
    this.#refs.set(key, refs);
    for (const id of refs.named) addTo(this.#namedBy, id, key);
    for (const id of refs.owners) addTo(this.#ownedBy, id, key);
    if (r.build) this.#building.add(key);
  }

  /** Undoes what `#add` did for the previous value; a replaced resource keeps its place in the order. */
  #forget(key: string, r: StoredResource, replaced: boolean): void {
    if (!replaced) {
      this.#collections.get(r.collection)?.delete(key);
      this.#order.delete(key);
      this.#keyById.delete(String(r.doc.id));
    }
    if (r.doc.managed !== true) this.#counts.set(countKey(r.account_id, r.collection), (this.#counts.get(countKey(r.account_id, r.collection)) ?? 1) - 1);
    const refs = this.#refs.get(key);
    for (const id of refs?.named ?? []) removeFrom(this.#namedBy, id, key);
    for (const id of refs?.owners ?? []) removeFrom(this.#ownedBy, id, key);
    this.#refs.delete(key);
    this.#building.delete(key);
  }

  /** The collection's resources (every account's), oldest first. */
  collection(collection: string): Iterable<StoredResource> {
    return this.#collections.get(collection)?.values() ?? [];
  }

  /** Every resource, oldest first within each collection. */
  *all(): Iterable<StoredResource> {
    for (const members of this.#collections.values()) yield* members.values();
  }

  byId(id: string): StoredResource | undefined {
    const key = this.#keyById.get(id);
    return key === undefined ? undefined : this.#find(key);
  }

  count(accountId: string, collection: string): number {
    return this.#counts.get(countKey(accountId, collection)) ?? 0;
  }

  /** Resources naming `id` through a reference member, oldest first. */
  namedBy(id: string): StoredResource[] {
    return this.#resolve(this.#namedBy.get(id));
  }

  /** Resources that are part of `id`, oldest first. */
  ownedBy(id: string): StoredResource[] {
    return this.#resolve(this.#ownedBy.get(id));
  }

  /** Resources with a build under way, oldest first. */
  building(): StoredResource[] {
    return this.#resolve(this.#building);
  }

  /** Sorts resources found otherwise (e.g. by id) into creation order. */
  inOrder(resources: StoredResource[]): StoredResource[] {
    const at = new Map(resources.map((r) => [r, this.#order.get(this.#keyById.get(String(r.doc.id)) ?? "") ?? 0]));
    return resources.sort((a, b) => at.get(a)! - at.get(b)!);
  }

  #find(key: string): StoredResource | undefined {
    const collection = key.slice(0, key.indexOf("/"));
    return this.#collections.get(collection)?.get(key);
  }

  #resolve(keys: Set<string> | undefined): StoredResource[] {
    if (!keys) return [];
    return [...keys].sort((a, b) => (this.#order.get(a) ?? 0) - (this.#order.get(b) ?? 0)).map((k) => this.#find(k)).filter((r): r is StoredResource => r !== undefined);
  }
}
