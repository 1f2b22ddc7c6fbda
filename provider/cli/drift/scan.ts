// Reading a fleet: per account, each document fetched once: one plain list per family a program may own (its
// managed documents and what nobody manages), one `?ids=` list per 100 managed resources of any other family; each
// resource then goes through the provider's own read and diff, fed from those lists, so "in sync" means exactly
// what `refresh` would find.
import { AudienceClient, MAX_IDS_PER_REQUEST, NotFoundError } from "pulumi-audience/sdk/client";
import { isObject, jsonEqual, type FamilyDef } from "pulumi-audience/sdk/contract";
import { BUILD_PATH, compare, createLifecycle, PROVIDER_KEY, readInputs, readsBack, type Service } from "pulumi-audience/provider";
import { providerFamilies, type ProviderFamily } from "../../runtime/families/index.ts";
import { ADOPTABLE } from "../adoptable.ts";
import { camelPath } from "../../runtime/lifecycle/shape.ts";
import type { AccountTarget } from "./accounts.ts";
import type { IgnoreRules } from "./ignore.ts";
import type { AccountReport, Change, ResourceReport, Status } from "./report.ts";
import { resourceKey, type Props, type StateResource } from "./states.ts";

export const SECRET_SHOWN = "[secret]";

/** Lists of one account in flight at once: as many as the client keeps connections, so that one account never
 * floods the service. */
const LISTS_AT_ONCE = 8;

export interface ScanOptions {
  rules: IgnoreRules;
  /** Time one request may take, in ms (the client's default otherwise). */
  timeoutMs?: number;
}

/** What one account holds for the scan: the resources its states manage and every id they read or mention. */
export interface AccountWork {
  target: AccountTarget;
  managed: StateResource[];
  /** Ids any given state manages, reads (`.get`) or mentions in a value (lookups), whatever account it names: never
   * unmanaged (a stack whose account cannot be read still manages them). Gathered when first asked, for a listed
   * document no managed resource of its list matched. */
  known: () => ReadonlySet<string>;
  /** Names of what the service made for managed resources (a dataset's streams), by collection: never unmanaged. */
  made: Map<string, Set<string>>;
}

/**
 * What an account answers whatever the states hold: the key's own account, then the plain list of each family a
 * program may own. Started as soon as the account is known, so the service answers while the other states are read.
 */
export interface AccountReads {
  client: AudienceClient;
  /** Gate of the account's lists: `LISTS_AT_ONCE` in flight. */
  lists: <R>(task: () => Promise<R>) => Promise<R>;
  self: Promise<string>;
  /** Each plain list, parsed when called: held as bytes until its resources are compared. */
  plain: Map<string, Promise<() => Props[]>>;
}

/** The account's first reads, under way; undefined for an account without credentials. */
export function startReads(target: AccountTarget, options: Pick<ScanOptions, "timeoutMs">): AccountReads | undefined {
  if (!target.credentials) return undefined;
  const client = new AudienceClient({ ...target.credentials, ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}) });
  const lists = limiter(LISTS_AT_ONCE);
  const self = lists(() => client.request<Props>({ method: "GET", path: "/accounts/current" })).then((account) => String(account.id));
  // The lists wait for the key to prove good: a refused key costs one request.
  const plain = new Map(ADOPTABLE.map((kind) => [kind.family.collection, self.then(() => lists(async () => (await client.listLater(kind.family)) as () => Props[]))]));
  // The scan awaits each of them and reports its failure; until then a failure is not unhandled.
  for (const read of [self, ...plain.values()]) read.catch(() => undefined);
  return { client, lists, self, plain };
}

/** Families whose resources are listed one id batch at a time; the others (singletons, families that find their
 * resources their own way) are read by the provider's read one by one. */
function listedByIds(providerFamily: ProviderFamily): boolean {
  return !providerFamily.find && !providerFamily.family.singleton;
}

/** A gate that runs tasks at most `limit` at a time, in the order they come. */
export function limiter(limit: number): <R>(task: () => Promise<R>) => Promise<R> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    if (active < limit) active++;
    else await new Promise<void>((resolve) => waiting.push(resolve)); // the slot is handed over as it stands
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
}

/** Runs `work` over `items`, at most `limit` at a time, answers in the items' order. */
export async function pool<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const runners = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  });
  await Promise.all(runners);
  return results;
}

function strings(value: unknown, into: Set<string>): void {
  if (typeof value === "string") into.add(value);
  else if (Array.isArray(value)) for (const v of value) strings(v, into);
  else if (isObject(value)) for (const v of Object.values(value)) strings(v, into);
}

/** Groups the states' resources by the account they live in; what every state knows is known in every account. */
export function accountWork(resources: StateResource[], targetOf: (r: StateResource) => AccountTarget, targets: Iterable<AccountTarget> = []): AccountWork[] {
  let known: Set<string> | undefined;
  const gather = () => {
    known = new Set();
    for (const r of resources) {
      known.add(r.id);
      strings(r.inputs, known); // ids a program passes on (lookups) are in its inputs
    }
    return known;
  };
  // Accounts no given resource is in (a stack that manages nothing yet) are read for what no stack manages.
  const byTarget = new Map<AccountTarget, StateResource[]>([...targets].map((target) => [target, []]));
  for (const resource of resources) {
    const target = targetOf(resource);
    const all = byTarget.get(target);
    if (all) all.push(resource);
    else byTarget.set(target, [resource]);
  }
  return [...byTarget].map(([target, all]) => {
    const managed = all.filter((r) => !r.external);
    const made = new Map<string, Set<string>>();
    for (const resource of managed) {
      for (const [collection, names] of resource.made) {
        if (!made.has(collection)) made.set(collection, new Set());
        for (const name of names) made.get(collection)!.add(name);
      }
    }
    return { target, managed, made, known: () => known ?? gather() };
  });
}

const at = (value: unknown, path: (string | number)[]): unknown =>
  path.reduce<unknown>((v, k) => (typeof k === "number" ? (Array.isArray(v) ? v[k] : undefined) : isObject(v) ? v[k] : undefined), value);

function segments(path: string): (string | number)[] {
  return [...path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((m) => (m[2] !== undefined ? Number(m[2]) : m[1]!));
}

/** A copy of `target` with the value at `path` replaced (absent when `value` is undefined). */
function withValueAt(target: Props, path: string, value: unknown): Props {
  const keys = segments(path);
  const copy = structuredClone(target);
  let parent: unknown = copy;
  for (const key of keys.slice(0, -1)) {
    const child = at(parent, [key]);
    if (!isObject(child) && !Array.isArray(child)) return copy;
    parent = child;
  }
  const last = keys.at(-1);
  if (last === undefined) return copy;
  if (value === undefined) {
    if (isObject(parent)) delete parent[String(last)];
  } else if (Array.isArray(parent) && typeof last === "number") {
    parent[last] = value;
  } else if (isObject(parent)) {
    parent[String(last)] = value;
  }
  return copy;
}

/** The member paths where two values differ: objects by member, arrays of one length by element, else whole. */
function differences(expected: unknown, actual: unknown, path: string): Change[] {
  if (jsonEqual(expected, actual)) return [];
  if (isObject(expected) && isObject(actual)) {
    return [...new Set([...Object.keys(expected), ...Object.keys(actual)])].flatMap((k) => differences(expected[k], actual[k], `${path}.${k}`));
  }
  if (Array.isArray(expected) && Array.isArray(actual) && expected.length === actual.length) {
    return expected.flatMap((v, i) => differences(v, actual[i], `${path}[${i}]`));
  }
  return [{ path, expected: expected ?? null, actual: actual ?? null }];
}

const withoutIndexes = (path: string) => path.replace(/\[\d*\]/g, "");
const within = (path: string, outer: string) => path === outer || path.startsWith(`${outer}.`) || path.startsWith(`${outer}[`);

/** Secret values (the state's own and the contract's credentials) replaced by `[secret]`. */
function redact(value: unknown, path: string, secret: (path: string) => boolean): unknown {
  if (secret(path)) return SECRET_SHOWN;
  if (Array.isArray(value)) return value.map((v, i) => redact(v, `${path}[${i}]`, secret));
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redact(v, `${path}.${k}`, secret)]));
  return value;
}

/** Each family's credential members as camelCase paths (without array indexes). */
const CREDENTIALS = new Map(Object.values(providerFamilies).map((k) => [k.family.collection, k.family.secrets.map((p) => withoutIndexes(camelPath(k.family.create, p)))]));

function secretTest(resource: StateResource): (path: string) => boolean {
  const credentials = CREDENTIALS.get(resource.collection) ?? [];
  return (path) => resource.secretPaths.some((s) => within(path, s)) || credentials.some((c) => within(withoutIndexes(path), c));
}

/** The service calls the provider's read makes, answered from the lists already fetched; the generic writes refuse. */
function readOnlyService(client: AudienceClient, docs: Map<string, Props>): Service {
  const key = (family: FamilyDef, id: string) => resourceKey(family.collection, id);
  const find = async (family: FamilyDef, id: string): Promise<Props | undefined> => {
    if (docs.has(key(family, id)) || listedByIds(providerFamilies[family.collection]!)) return docs.get(key(family, id));
    try {
      return (await client.get(family, id)) as Props;
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  };
  const refuse = () => Promise.reject(new Error("audience drift only reads"));
  return {
    // A family that finds its resources its own way (uploads) reads through the client.
    client,
    find,
    async get(family, id) {
      const found = await find(family, id);
      if (!found) throw new Error(`${family.name} ${id} is gone`);
      return found;
    },
    list: refuse,
    missing: refuse,
    create: refuse,
    update: refuse,
    delete: refuse,
    archive: refuse,
    unarchive: refuse,
  };
}

/** The member an archive outside the program sets. */
const ARCHIVED_AT = "archivedAt";

/** The changes of every resource that has none: a fleet's reports are mostly in sync, each kept until printed. */
const NO_CHANGES: readonly Change[] = Object.freeze([]);

/** A resource's report: its names, then what was found (in this order, as the JSON report shows them). */
function reported(resource: StateResource, status: Status, changes: readonly Change[] = NO_CHANGES, reason?: string): ResourceReport {
  const { urn, type, name, id, declaredAt } = resource;
  const report: ResourceReport = declaredAt ? { urn, type, name, id, source: declaredAt, status, changes } : { urn, type, name, id, status, changes };
  if (reason !== undefined) report.reason = reason;
  return report;
}

/** Whether the listed document reads back as the state records the resource: one walk, no provider's read. */
function readsBackAsListed(resource: StateResource, live: Props | undefined): live is Props {
  return live !== undefined && resource.sealed.length === 0 && readsBack(resource.recorded, resource.inputs, live);
}

/**
 * In sync, when the listed document reads back as the state records it and nothing else is to report (the
 * common case): decided at once, without the provider's read. Undefined means "compare".
 */
function inSyncAsListed(resource: StateResource, live: Props): ResourceReport | undefined {
  if (live.status === "error") return undefined;
  try {
    if (!readsBackAsListed(resource, live)) return undefined;
  } catch {
    return undefined; // the comparison reports it
  }
  return reported(resource, "in_sync");
}

/** One managed resource against its live form. */
async function compareOne(resource: StateResource, live: Props | undefined, archivedAt: string | undefined, read: ReturnType<typeof createLifecycle>["read"], rules: IgnoreRules): Promise<ResourceReport> {
  const providerFamily = providerFamilies[resource.collection]!;
  if (live === undefined && listedByIds(providerFamily)) {
    return reported(resource, "missing", [], "deleted outside the program (or not visible to this key)");
  }
  const ignored = (path: string) => resource.ignoreChanges.some((p) => within(path, p.replace(/\["([^"]+)"\]/g, ".$1"))) || rules.ignoresMember(resource.type, resource.name, resource.id, path);
  let actual: Props = {};
  let expected = resource.inputs;
  let changed: string[] = [];
  let recorded: Props | undefined;
  // Most resources are as the state records them, which one walk of the listed document tells without its
  // normalization; the others are read as refresh reads them.
  if (!readsBackAsListed(resource, live)) {
    const props = { ...(await resource.outputs()), ...resource.inputs };
    // A listed document is what the provider's read would fetch: its inputs are read from it; the outputs (for
    // the provider's diff) only when something differs.
    const found = live !== undefined ? { id: resource.id, inputs: readInputs(props, live) } : await read(resource.id, props);
    if (!found.id) return reported(resource, "missing", [], "deleted outside the program");
    actual = (found.inputs ?? {}) as Props;
    if ("props" in found) recorded = found.props as Props;
    // Members the state holds sealed are taken as they are live: they cannot be compared, only reported.
    for (const { path } of resource.sealed) expected = withValueAt(expected, path, at(actual, segments(path)));
    // What refresh would record equals what the state holds: in sync without a diff. Otherwise the provider's
    // diff names the members that changed.
    const same = Object.keys(actual).every((k) => jsonEqual(actual[k], expected[k])) && Object.keys(expected).every((k) => k in actual || k === PROVIDER_KEY);
    if (!same) {
      recorded ??= (await read(resource.id, props)).props as Props;
      // A failed build is said below as the resource's state, not as a member that changed.
      changed = (await compare(recorded ?? {}, expected)).changed.filter((key) => key !== BUILD_PATH);
    }
  }
  const secret = secretTest(resource);
  // As refresh records it: drift of `archivedAt` (which the next `up` undoes by unarchiving) first, then the rest.
  const archiving = archivedAt === undefined ? [] : [{ path: ARCHIVED_AT, expected: null, actual: archivedAt }];
  const changes = [...archiving, ...changed.filter((key) => key !== ARCHIVED_AT).flatMap((key) => {
    const deep = differences(expected[key], actual[key], key);
    return deep.length > 0 ? deep : [{ path: key, expected: expected[key] ?? null, actual: actual[key] ?? null }];
  })].filter((c) => !ignored(c.path)).map((c) => ({ path: c.path, expected: redact(c.expected, c.path, secret), actual: redact(c.actual, c.path, secret) }));
  const sealed = resource.sealed.filter((s) => s.path !== "" && !ignored(s.path));
  const notCompared = sealed.length > 0 ? `not compared: ${sealed.map((s) => `${s.path} (${s.reason})`).join("; ")}` : undefined;
  const state = live ?? recorded ?? {};
  if (state.status === "error") {
    const why = typeof state.status_error === "string" ? state.status_error : typeof state.statusError === "string" ? state.statusError : "no reason given";
    return reported(resource, "error", changes, `build failed: ${why}`);
  }
  if (changes.length > 0) {
    const archivedAway = changes[0]?.path === ARCHIVED_AT ? "archived outside the program: `refresh` then `up` unarchives it" : undefined;
    return reported(resource, "drifted", changes, [archivedAway, notCompared].filter((r) => r !== undefined).join("; ") || undefined);
  }
  if (notCompared) return reported(resource, "unknown", [], notCompared);
  return reported(resource, "in_sync");
}

/** Everything one account holds against what the states say, or the account's error. */
export async function scanAccount(work: AccountWork, options: ScanOptions, started?: AccountReads): Promise<AccountReport> {
  const { target } = work;
  const report: AccountReport = { account: target.name, baseUrl: target.baseUrl, stacks: [...target.stacks].sort(), resources: [] };
  const reads = started ?? startReads(target, options);
  if (!reads) return { ...report, error: target.problem ?? "no credentials" };
  const { client, lists } = reads;
  try {
    const self = await reads.self;
    /** Listed documents the provider's read is looking at, by `resourceKey`. */
    const docs = new Map<string, Props>();
    /** Managed resources no list answered. */
    const unanswered = new Set<StateResource>();
    /** Archived documents of managed resources no list answered, by `resourceKey`. */
    const archived = new Map<string, Props>();
    const unmanaged: ResourceReport[] = [];
    const byFamily = new Map<string, StateResource[]>();
    for (const r of work.managed) {
      if (!byFamily.has(r.collection)) byFamily.set(r.collection, []);
      byFamily.get(r.collection)!.push(r);
    }
    const families = [...new Set([...byFamily.keys(), ...ADOPTABLE.map((k) => k.family.collection)])];
    const listed = (collection: string) => (listedByIds(providerFamilies[collection]!) ? (byFamily.get(collection) ?? []) : []);
    const listIds = async (collection: string, ids: string[], query?: { archived: true }) => (await client.list(providerFamilies[collection]!.family, { ids, ...(query ? { query } : {}) })) as Props[];
    /** Reports a listed document no managed resource of its list matched, unless some state knows it or ignores it. */
    const noteUnmanaged = (providerFamily: ProviderFamily, doc: Props, id: string) => {
      const name = typeof doc.name === "string" ? doc.name : id;
      // The service's own resources, what it made for managed ones, and the key's own account belong to no program.
      if (doc.managed === true || id === self || work.made.get(providerFamily.family.collection)?.has(name) || work.known().has(id)) return;
      if (options.rules.ignoresResource(providerFamily.family.className, name, id)) return;
      unmanaged.push({ type: providerFamily.family.className, name, id, status: "unmanaged", changes: [], reason: "made outside any given program" });
    };
    const lifecycle = createLifecycle({
      settings: () => ({ default: {}, accounts: {} }),
      service: () => readOnlyService(client, docs),
      sleep: () => Promise.resolve(),
    });
    // Reports in the states' order, each made as soon as what it needs has been read.
    const reports = new Map<StateResource, ResourceReport>();
    /** Makes the resource's report from its listed document (`live`, if any); a promise only when it needs the
     * provider's read, which finds the document in `docs` meanwhile. */
    const check = (resource: StateResource, live: Props | undefined): Promise<void> | undefined => {
      if (reports.has(resource) || options.rules.ignoresResource(resource.type, resource.name, resource.id)) return undefined;
      // Decided from its listed document in the common case, before any scan key is built.
      const inSync = live !== undefined ? inSyncAsListed(resource, live) : undefined;
      if (inSync) return void reports.set(resource, inSync);
      const key = resourceKey(resource.collection, resource.id);
      // One no list answered may be archived: its archived document is compared as a listed one would be.
      const archivedDoc = live === undefined ? archived.get(key) : undefined;
      const doc = live ?? archivedDoc;
      if (doc !== undefined) docs.set(key, doc);
      return compareOne(resource, doc, archivedDoc === undefined ? undefined : String(archivedDoc.archived_at), lifecycle.read, options.rules).then(
        (report) => void reports.set(resource, report),
        (error: unknown) => void reports.set(resource, reported(resource, "unknown", [], `not compared: ${(error as Error).message}`)),
      ).finally(() => docs.delete(key));
    };
    // Each document is fetched once: a family a program may own is listed whole (its managed documents and what
    // nobody manages come from that one list); any other family by `?ids=` batches. Each list's resources are
    // compared as it arrives, while the next lists are under way (a few in flight at once: a list's slot is free
    // again once it has arrived, so the service works while this process compares); then, for managed ids no list
    // answered, whether they were archived.
    const compared: Promise<void>[] = [];
    const compareListed = async (collection: string, resources: StateResource[], listedDocs: Props[]) => {
      const providerFamily = providerFamilies[collection]!;
      const adoptable = ADOPTABLE.includes(providerFamily);
      // Keyed by the id alone: a list is of one collection. A resource two states manage (a twin) is compared once
      // per state.
      const byId = new Map<string, StateResource>();
      const twins: StateResource[] = [];
      for (const resource of resources) {
        if (byId.has(resource.id)) twins.push(resource);
        else byId.set(resource.id, resource);
      }
      const twinDocs = new Map<string, Props>();
      for (const doc of listedDocs) {
        const id = String(doc.id);
        const resource = byId.get(id);
        if (resource === undefined) {
          if (adoptable) noteUnmanaged(providerFamily, doc, id);
          continue;
        }
        byId.delete(id); // answered: what stays in byId is what the list did not answer
        if (twins.length > 0) twinDocs.set(id, doc);
        // A promise only when the provider reads: most are decided at once, and then the loop does not await.
        const comparing = check(resource, doc);
        if (comparing) await comparing;
      }
      for (const resource of byId.values()) unanswered.add(resource);
      for (const twin of twins) {
        const live = twinDocs.get(twin.id);
        if (live === undefined) unanswered.add(twin);
        const comparing = live === undefined ? undefined : check(twin, live);
        if (comparing) await comparing;
      }
    };
    for (const collection of families) {
      const resources = listed(collection);
      const plain = reads.plain.get(collection);
      reads.plain.delete(collection); // the list is held until compared, no longer
      if (plain) {
        compared.push(plain.then((listedDocs) => compareListed(collection, resources, listedDocs())));
        continue;
      }
      for (let start = 0; start < resources.length; start += MAX_IDS_PER_REQUEST) {
        const batch = resources.slice(start, start + MAX_IDS_PER_REQUEST);
        compared.push(lists(() => listIds(collection, batch.map((r) => r.id))).then((listedDocs) => compareListed(collection, batch, listedDocs)));
      }
    }
    await Promise.all(compared);
    const archivedReads = families.flatMap((collection) => {
      const absent = unanswered.size > 0 ? listed(collection).filter((r) => unanswered.has(r)).map((r) => r.id) : []; // in the states' order
      return absent.length > 0 && providerFamilies[collection]!.family.archivable ? [{ collection, absent }] : [];
    });
    await Promise.all(archivedReads.map(({ collection, absent }) => lists(async () => {
      for (const doc of await listIds(collection, absent, { archived: true })) archived.set(resourceKey(collection, String(doc.id)), doc);
    })));
    for (const resource of work.managed) {
      const comparing = check(resource, undefined);
      if (comparing) await comparing;
    }
    report.resources.push(...work.managed.flatMap((r) => reports.get(r) ?? []));
    unmanaged.sort((a, b) => a.type.localeCompare(b.type) || a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
    report.resources.push(...unmanaged);
    return report;
  } catch (error) {
    return { ...report, resources: [], error: (error as Error).message };
  } finally {
    await client.close();
  }
}
