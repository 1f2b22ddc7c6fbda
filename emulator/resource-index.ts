// Indexes over the stored resources, kept current from the record store's changes (rolled back ones included):
// each collection in creation order, resources by id, counts per account and collection, who names a resource and
// who owns it, the builds under way, and the JSON text of each document answered. Requests read through them instead
// of scanning and copying every resource; the documents they hold are the store's own, so callers copy only what they
// answer.
import { ID_PATTERN } from "./ids.ts";
import type { StoredResource } from "./model.ts";

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

type Refs = Readonly<{ named: readonly string[]; owners: readonly string[] }>;

/**
 * What a list by ids asks of a resource besides its id. Many resources have the same, so each entry points to one
 * kept for all of them.
 */
interface Traits {
  collection: string;
  accountId: string;
  archived: boolean;
  /** Whether the id matches the contract's id pattern, so a list naming it need not test it again. */
  idMatchesPattern: boolean;
}

/** What the index keeps of one stored resource. */
interface Entry {
  resource: StoredResource;
  /**
   * Kept beside the resource so a list by ids reads the entry alone: its ids are scattered over the whole store, and
   * the resource and its document would be two more reads from afar for each.
   */
  traits: Readonly<Traits>;
  /** Its place in the creation order, to sort a few found otherwise (e.g. by id) as a listing would. */
  at: number;
  /**
   * The document's JSON text, made the first time it is asked for. A stored document never changes in place (a save
   * stores a new one, which gets a new entry), so the text stays true while the entry lives: about the text's length
   * per document answered (about 0.5 KB a cohort).
   */
  text: string | undefined;
}

/** Which resources a list answers: those of one collection, archived or not, of the account or shared with it. */
export interface ListFilter {
  collection: string;
  accountId: string;
  archived: boolean;
  /** Whether the account may read a resource of another account. */
  sharedWith(resource: StoredResource): boolean;
}

export class ResourceIndex {
  readonly #references: References;
  /** collection -> store key -> entry, in creation order. */
  readonly #collections = new Map<string, Map<string, Entry>>();
  #next = 0;
  readonly #byId = new Map<string, Entry>();
  /** Resources per account and collection that count against its quota (not the service's own). */
  readonly #counts = new Map<string, number>();
  /** id -> store keys of the resources naming it (named) or being part of it (owned). */
  readonly #namedBy = new Map<string, Set<string>>();
  readonly #ownedBy = new Map<string, Set<string>>();
  /** store key -> the ids the resource names, as last indexed; only for those naming any (most name none). */
  readonly #refs = new Map<string, Refs>();
  readonly #building = new Set<string>();
  /** Each different Traits of the entries, once: a few per account and collection. */
  readonly #traits = new Map<string, Readonly<Traits>>();

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
    // A replaced resource keeps its entry's place (setting a key already present does not move it).
    const refs = this.#references(r);
    const id = String(r.doc.id);
    const entry: Entry = { resource: r, traits: this.#traitsOf(r, id), at: members.get(key)?.at ?? this.#next++, text: undefined };
    members.set(key, entry);
    this.#byId.set(id, entry);
    if (r.doc.managed !== true) this.#counts.set(countKey(r.account_id, r.collection), (this.#counts.get(countKey(r.account_id, r.collection)) ?? 0) + 1);
    if (refs.named.length + refs.owners.length > 0) this.#refs.set(key, refs);
    for (const id of refs.named) addTo(this.#namedBy, id, key);
    for (const id of refs.owners) addTo(this.#ownedBy, id, key);
    if (r.build) this.#building.add(key);
  }

  #traitsOf(r: StoredResource, id: string): Readonly<Traits> {
    const traits: Traits = { collection: r.collection, accountId: r.account_id, archived: r.doc.archived_at != null, idMatchesPattern: ID_PATTERN.test(id) };
    const key = JSON.stringify([traits.collection, traits.accountId, traits.archived, traits.idMatchesPattern]);
    let kept = this.#traits.get(key);
    if (!kept) this.#traits.set(key, (kept = traits));
    return kept;
  }

  /** Undoes what `#add` did for the previous value; a replaced resource keeps its entry, and so its place. */
  #forget(key: string, r: StoredResource, replaced: boolean): void {
    const members = this.#collections.get(r.collection);
    const refs = this.#refs.get(key);
    this.#refs.delete(key);
    if (!replaced) {
      members?.delete(key);
      this.#byId.delete(String(r.doc.id));
    }
    if (r.doc.managed !== true) this.#counts.set(countKey(r.account_id, r.collection), (this.#counts.get(countKey(r.account_id, r.collection)) ?? 1) - 1);
    for (const id of refs?.named ?? []) removeFrom(this.#namedBy, id, key);
    for (const id of refs?.owners ?? []) removeFrom(this.#ownedBy, id, key);
    this.#building.delete(key);
  }

  /** The collection's resources (every account's), oldest first. */
  *collection(collection: string): Iterable<StoredResource> {
    for (const entry of this.#collections.get(collection)?.values() ?? []) yield entry.resource;
  }

  /** Every resource, oldest first within each collection. */
  *all(): Iterable<StoredResource> {
    for (const members of this.#collections.values()) for (const entry of members.values()) yield entry.resource;
  }

  byId(id: string): StoredResource | undefined {
    return this.#byId.get(id)?.resource;
  }

  /**
   * The JSON text of `doc` when it is a stored document itself (not a copy), kept until the document is replaced or
   * removed; undefined for any other value.
   */
  textOf(doc: object): string | undefined {
    const id = (doc as { id?: unknown }).id;
    const entry = typeof id === "string" ? this.#byId.get(id) : undefined;
    if (entry?.resource.doc !== doc) return undefined;
    return (entry.text ??= JSON.stringify(doc));
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

  /**
   * The resources among `ids` (each id once) that `filter` keeps, oldest first. Each id not known to match the id
   * pattern (that of no resource, or of one whose id does not) is added to `untested`, for the caller to test.
   */
  byIds(ids: Iterable<string>, filter: ListFilter, untested: string[]): StoredResource[] {
    return this.#listed(ids, filter, untested).map((e) => e.resource);
  }

  /** Like byIds(), but the JSON text of each document, as textOf() makes and keeps it. */
  textsByIds(ids: Iterable<string>, filter: ListFilter, untested: string[]): string[] {
    return this.#listed(ids, filter, untested).map((e) => (e.text ??= JSON.stringify(e.resource.doc)));
  }

  #listed(ids: Iterable<string>, { collection, accountId, archived, sharedWith }: ListFilter, untested: string[]): Entry[] {
    const found: Entry[] = [];
    for (const id of ids instanceof Set ? ids : new Set(ids)) {
      const entry = this.#byId.get(id);
      if (!entry) {
        untested.push(id);
        continue;
      }
      const { traits } = entry;
      if (!traits.idMatchesPattern) untested.push(id);
      if (traits.collection !== collection || traits.archived !== archived) continue;
      if (traits.accountId === accountId || sharedWith(entry.resource)) found.push(entry);
    }
    return found.sort(byCreation);
  }

  /** Sorts resources found otherwise into creation order. */
  inOrder(resources: StoredResource[]): StoredResource[] {
    return inCreationOrder(resources.map((resource) => ({ resource, at: this.#byId.get(String(resource.doc.id))?.at ?? 0 })));
  }

  #resolve(keys: Set<string> | undefined): StoredResource[] {
    const found: Entry[] = [];
    for (const key of keys ?? []) {
      const entry = this.#collections.get(key.slice(0, key.indexOf("/")))?.get(key);
      if (entry) found.push(entry);
    }
    return inCreationOrder(found);
  }
}

const byCreation = (a: { at: number }, b: { at: number }) => a.at - b.at;

function inCreationOrder(found: { resource: StoredResource; at: number }[]): StoredResource[] {
  return found.sort(byCreation).map((e) => e.resource);
}
