// The stack's snapshot: the resources it holds and the operations in flight, kept in the stack's state file in the
// layout of `pulumi stack export`, secrets sealed with the passphrase provider, and in the journal of the changes
// made since the file was written. The file is written whole to a temporary file renamed over the old one, so a
// crash never leaves half a state.
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { copyFile, link, mkdir, open, readFile, rename, rm, unlink } from "node:fs/promises";
import { hostname } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { basename, dirname } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { z } from "zod";
import { Journal, type JournalContents } from "./journal.ts";
import { PassphraseCrypter } from "./secrets.ts";
import type { CustomTimeouts } from "./timeouts.ts";
import { annotateSecrets, markSecret, plaintextSecrets, type PropertyMap, type Value } from "../protocol/values.ts";

export interface ResourceState {
  urn: string;
  custom: boolean;
  type: string;
  id?: string;
  inputs: PropertyMap;
  outputs: PropertyMap;
  parent?: string;
  dependencies: string[];
  propertyDependencies?: Record<string, string[]>;
  provider?: string;
  protect?: boolean;
  retainOnDelete?: boolean;
  deleteBeforeReplace?: boolean;
  additionalSecretOutputs?: string[];
  ignoreChanges?: string[];
  /** Where the program declares it (`project:///index.ts#12,5`), as Pulumi records it. */
  sourcePosition?: string;
  /** Read with `.get()`, not managed: never deleted, only forgotten. */
  external?: boolean;
  /** An old copy waiting to be deleted after its replacement was created. */
  delete?: boolean;
  /** Reasons the provider gave when the resource exists but did not finish initializing. */
  initErrors?: string[];
  /** The program's customTimeouts, in seconds, as Pulumi records them. */
  customTimeouts?: CustomTimeouts;
}

export interface PendingOperation {
  resource: Pick<ResourceState, "urn" | "type" | "inputs"> & { id?: string };
  type: "creating" | "updating" | "deleting";
  /** When the call began (ms since the epoch): what a create left unknown was made after it. */
  startedAt?: number;
  /** Why it is still pending when its call failed with its outcome unknown (the errors, as the step reported them). */
  reason?: string;
}

/** The state file; Pulumi names the snapshot in it `deployment`. */
interface StateFile {
  version: 3;
  deployment: {
    manifest: { time: string; magic: string; version: string };
    secrets_providers: { type: "passphrase"; state: { salt: string } };
    resources: ResourceState[];
    pending_operations?: (PendingOperation & { id: string })[];
  };
}

export class StateError extends Error {
  override name = "StateError";
}

// The stored layout, checked on load so a damaged file is named, field by field, instead of failing later. Members
// this engine does not use (a `pulumi stack export` has more) pass through untouched.
const propertyMap = z.record(z.string(), z.unknown());
const names = z.array(z.string());
const storedResource = z.looseObject({
  urn: z.string().startsWith("urn:pulumi:"),
  type: z.string(),
  custom: z.boolean().default(false),
  id: z.string().optional(),
  inputs: propertyMap.default({}),
  outputs: propertyMap.default({}),
  parent: z.string().optional(),
  dependencies: names.default([]),
  propertyDependencies: z.record(z.string(), names).optional(),
  provider: z.string().optional(),
  protect: z.boolean().optional(),
  retainOnDelete: z.boolean().optional(),
  deleteBeforeReplace: z.boolean().optional(),
  additionalSecretOutputs: names.optional(),
  ignoreChanges: names.optional(),
  sourcePosition: z.string().optional(),
  external: z.boolean().optional(),
  delete: z.boolean().optional(),
  initErrors: names.optional(),
  customTimeouts: z.looseObject({ create: z.number().optional(), update: z.number().optional(), delete: z.number().optional() }).optional(),
});
const storedOperation = z.looseObject({
  /** Names the operation in the journal's records; Pulumi's own state has none. */
  id: z.string().optional(),
  type: z.enum(["creating", "updating", "deleting"]),
  startedAt: z.number().optional(),
  reason: z.string().optional(),
  resource: z.looseObject({ urn: z.string(), type: z.string(), id: z.string().optional(), inputs: propertyMap.default({}) }),
});
// One record is everything one step outcome changed (an operation ended and its resource put, say): it reaches the
// disk whole or not at all.
const journalRecord = z.strictObject({
  end: z.string().optional(),
  drop: z.string().optional(),
  put: storedResource.optional(),
  begin: storedOperation.extend({ id: z.string() }).optional(),
}).refine((r) => Object.keys(r).length > 0, "an empty record");
const storedDeployment = z.looseObject({
  // Without a passphrase salt (an export of another secrets provider made with --show-secrets, or of a stack
  // without secrets) every secret must be in plaintext; they are then sealed with the stack's own salt.
  secrets_providers: z.looseObject({ state: z.looseObject({ salt: z.string().optional() }).optional() }).optional(),
  resources: z.array(storedResource),
  pending_operations: z.array(storedOperation).optional(),
});
const storedStateFile = z.looseObject({ version: z.literal(3), deployment: storedDeployment });
/** The same, its resources left to `writtenWhole`. */
const storedStateShell = z.looseObject({ version: z.literal(3), deployment: storedDeployment.extend({ resources: z.array(z.unknown()) }) });

type StoredStateFile = z.output<typeof storedStateFile>;
type StoredResource = z.output<typeof storedResource>;

const isString = (v: unknown): v is string => typeof v === "string";
const isBoolean = (v: unknown): v is boolean => typeof v === "boolean";
const isMap = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isNames = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);
const optional = (v: unknown, is: (v: unknown) => boolean) => v === undefined || is(v);

/**
 * A resource as this engine writes it (with every member `storedResource` has a default for), checked by hand: zod's check
 * of each resource costs more than parsing the file. One this does not pass goes to `storedResource`, which takes
 * what other tools write and names what is wrong.
 */
function writtenWhole(r: unknown): r is StoredResource {
  if (!isMap(r)) return false;
  const timeouts = r["customTimeouts"];
  const propertyDependencies = r["propertyDependencies"];
  return isString(r["urn"]) && r["urn"].startsWith("urn:pulumi:") && isString(r["type"]) && isBoolean(r["custom"])
    && isMap(r["inputs"]) && isMap(r["outputs"]) && isNames(r["dependencies"])
    && ["id", "parent", "provider", "sourcePosition"].every((k) => optional(r[k], isString))
    && ["protect", "retainOnDelete", "deleteBeforeReplace", "external", "delete"].every((k) => optional(r[k], isBoolean))
    && ["additionalSecretOutputs", "ignoreChanges", "initErrors"].every((k) => optional(r[k], isNames))
    && optional(propertyDependencies, (d) => isMap(d) && Object.values(d).every(isNames))
    && optional(timeouts, (t) => isMap(t) && ["create", "update", "delete"].every((k) => optional(t[k], (n) => typeof n === "number")));
}

/** A state document checked against the stored layout. */
function parseStateFile(doc: unknown): ReturnType<typeof storedStateFile.safeParse> {
  const shell = storedStateShell.safeParse(doc);
  if (shell.success && shell.data.deployment.resources.every(writtenWhole)) {
    const data: StoredStateFile = { ...shell.data, deployment: { ...shell.data.deployment, resources: shell.data.deployment.resources as StoredResource[] } };
    return { success: true, data };
  }
  return storedStateFile.safeParse(doc);
}

function where(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === "number" ? `[${p}]` : `${i === 0 ? "" : "."}${String(p)}`)).join("") || "(document)";
}

/**
 * A record of the journal: what one change did, applied in this order: an operation ended, a resource removed (by
 * key), a resource's new state, an operation begun.
 */
interface JournalRecord {
  end?: string;
  drop?: string;
  put?: ResourceState;
  begin?: PendingOperation & { id: string };
}

/** Live resources by URN; copies waiting for deletion by URN and id, as several may wait at once. */
function keyOf(r: Pick<ResourceState, "urn" | "delete" | "id">): string {
  return r.delete ? `${r.urn}#${r.id ?? ""}` : r.urn;
}

/**
 * The stack's state. Each change is one record appended to a journal next to the state file (fsynced, shared with
 * changes made at the same time), so what a step writes does not grow with the stack; `compact()` folds the journal
 * into the state file at the end of a run, and `load()` replays a journal a crash left behind. Every record is a
 * blind write of one key, so replaying a journal over a state that already holds it changes nothing.
 * Operations in flight are records too: those begun and not ended are the pending operations, kept in the state
 * file until a later run resolves them.
 */
export class Snapshot {
  readonly path: string;
  readonly crypter: PassphraseCrypter;
  readonly #resources: Map<string, ResourceState>;
  readonly #pending: Map<string, PendingOperation>;
  readonly #journal: Journal;
  readonly #hasFile: boolean;
  #fileWritten: Promise<void> | undefined;
  /** Whether load() found a journal: compact() then folds it in even if this run changes nothing. */
  #replayed = false;

  /** What loading found that the user should know: a journal record a crash cut short. */
  readonly warnings: string[] = [];
  /** The state file was read and opened whole: it is a good snapshot to keep as the backup. */
  #fileGood = false;

  private constructor(path: string, crypter: PassphraseCrypter, resources: ResourceState[], pending: Map<string, PendingOperation>, hasFile: boolean, journal?: JournalContents) {
    this.path = path;
    this.#hasFile = hasFile;
    this.crypter = crypter;
    this.#resources = new Map(resources.map((r) => [keyOf(r), r]));
    this.#pending = pending;
    this.#journal = new Journal(journalPath(path), journal);
  }

  /** Reads the state file and replays its journal, or starts an empty stack whose secrets use the given salt (or a new one). */
  static async load(path: string, passphrase: string, saltForNewStack?: string): Promise<Snapshot> {
    let text: string | undefined;
    try {
      text = await readFile(path, "utf8");
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "EISDIR") throw new StateError(`${path} is a directory: the stack's state is kept in a file of that name; move the directory away or choose another --state-dir`);
      if (code !== "ENOENT") throw e;
    }
    const journal = await Journal.read(journalPath(path)).catch((e: Error) => {
      const isDir = (e as NodeJS.ErrnoException).code === "EISDIR";
      throw new StateError(isDir ? `${journalPath(path)} is a directory: the stack's journal is kept in a file of that name; move the directory away` : `${e.message}; ${restoreAdvice(path)}`);
    });
    if (text === undefined && journal.records.length === 0) {
      const empty = new Snapshot(path, await PassphraseCrypter.open(passphrase, saltForNewStack), [], new Map(), false, journal);
      if (journal.torn !== undefined) empty.#warnTorn(journal.torn);
      empty.#replayed = journal.torn !== undefined;
      return empty;
    }
    const state = await Snapshot.#open(text, journal, { path, passphrase, saltForNewStack, source: path, advice: restoreAdvice(path) });
    state.#fileGood = text !== undefined;
    if (journal.torn !== undefined) state.#warnTorn(journal.torn);
    return state;
  }

  /** A journal's last record cut short: its change is not applied, so the operation it would have ended stays pending. */
  #warnTorn(torn: string): void {
    const ended = /^\{"end":"([0-9a-f]+)"/.exec(torn)?.[1];
    const op = ended === undefined ? undefined : this.#pending.get(ended);
    const what = op ? `it ended the ${op.type.replace(/ing$/, "e")} of ${op.resource.urn}, which stays pending` : "what it recorded was not acknowledged";
    this.warnings.push(`${journalPath(this.path)}: its last record (${Buffer.byteLength(torn)} bytes) was cut short by a crash and is not applied; ${what}`);
  }

  /**
   * A state document, as a state file holds it or `pulumi stack export` writes it (secrets as ciphertext, or as
   * plaintext with --show-secrets), to be kept at `path`. `source` names the text in errors (default: path).
   */
  static parse(text: string, { path, passphrase, saltForNewStack, source = path }: { path: string; passphrase: string; saltForNewStack?: string; source?: string }): Promise<Snapshot> {
    return Snapshot.#open(text, { records: [], wholeBytes: 0, unterminated: false }, { path, passphrase, saltForNewStack, source });
  }

  /** A state file's text (if any) with the journal records written after it replayed over it. */
  static async #open(text: string | undefined, journal: JournalContents, { path, passphrase, saltForNewStack, source, advice }: { path: string; passphrase: string; saltForNewStack?: string | undefined; source: string; advice?: string }): Promise<Snapshot> {
    let doc: unknown;
    try {
      doc = text === undefined ? emptyState(await PassphraseCrypter.open(passphrase, saltForNewStack)) : JSON.parse(text);
    } catch (e) {
      throw new StateError(`${source}: not valid JSON (${(e as Error).message})${advice ? `; ${advice}` : ""}`);
    }
    const parsed = parseStateFile(doc);
    if (!parsed.success) {
      const problems = parsed.error.issues.slice(0, 3).map((i) => `${where(i.path)}: ${i.message}`).join("; ");
      throw new StateError(`${source}: not a stack state of version 3 with a passphrase secrets provider (${problems})${advice ? `; ${advice}` : ""}`);
    }
    const { deployment } = parsed.data;
    const crypter = await PassphraseCrypter.open(passphrase, deployment.secrets_providers?.state?.salt ?? saltForNewStack);
    const open = (value: Record<string, unknown>, what: string): PropertyMap => {
      try {
        return crypter.openValue(value as Value) as PropertyMap;
      } catch (e) {
        throw new StateError(`${source}: ${what}: ${(e as Error).message}`);
      }
    };
    const openResource = (r: StoredResource) =>
      ({ ...r, inputs: open(r.inputs, `${r.urn} inputs`), outputs: open(r.outputs, `${r.urn} outputs`) }) as ResourceState;
    const openOperation = (op: z.output<typeof storedOperation>): PendingOperation => ({
      type: op.type,
      ...(op.startedAt !== undefined ? { startedAt: op.startedAt } : {}),
      ...(op.reason !== undefined ? { reason: op.reason } : {}),
      resource: { ...op.resource, inputs: open(op.resource.inputs, `pending ${op.type} of ${op.resource.urn}`) },
    });
    // Operations written by another tool have no id: their place names them, the same on every load.
    const pending = new Map((deployment.pending_operations ?? []).map((op, i) => [op.id ?? `unnamed-${i}`, openOperation(op)]));
    const state = new Snapshot(path, crypter, deployment.resources.map(openResource), pending, text !== undefined, journal);
    state.#replayed = journal.records.length > 0 || journal.torn !== undefined;
    for (const [i, record] of journal.records.entries()) {
      const parsedRecord = journalRecord.safeParse(record);
      if (!parsedRecord.success) throw new StateError(`${journalPath(path)}, record ${i + 1}: ${parsedRecord.error.issues[0]?.message}; ${restoreAdvice(path)}`);
      const r = parsedRecord.data;
      if (r.end !== undefined) state.#pending.delete(r.end);
      if (r.drop !== undefined) state.#resources.delete(r.drop);
      if (r.put) state.#resources.set(keyOf(r.put), openResource(r.put));
      if (r.begin) state.#pending.set(r.begin.id, openOperation(r.begin));
    }
    return state;
  }

  /** Every resource, live ones and copies waiting for deletion, in the order they were first recorded. */
  get resources(): ResourceState[] {
    return [...this.#resources.values()];
  }

  /** Operations begun and not ended: by a run that crashed, or whose outcome is not known. */
  get pending(): PendingOperation[] {
    return [...this.#pending.values()];
  }

  find(urn: string): ResourceState | undefined {
    return this.#resources.get(urn);
  }

  /**
   * Puts the new state of a resource in place of its old one (or adds it); resolves once recorded on disk.
   * `renamed` is its old entry under another URN (an alias), which gives way; `ends` is the operation whose outcome
   * this is, ended in the same record.
   */
  upsert(resource: ResourceState, { renamed, ends }: { renamed?: ResourceState | undefined; ends?: string | undefined } = {}): Promise<void> {
    const record: JournalRecord = {};
    if (ends !== undefined) record.end = this.#ended(ends);
    if (renamed && renamed.urn !== resource.urn && this.#resources.get(keyOf(renamed)) === renamed) record.drop = this.#dropped(renamed);
    const key = keyOf(resource);
    const previous = this.#resources.get(key);
    this.#resources.set(key, resource);
    // A step that changed nothing (a no-op up) writes nothing.
    if (!previous || !isDeepStrictEqual(previous, resource)) record.put = resource;
    return this.#append(record);
  }

  /** Removes a resource; `ends` is the operation whose outcome this is (its delete), ended in the same record. */
  remove(resource: ResourceState, { ends }: { ends?: string | undefined } = {}): Promise<void> {
    const record: JournalRecord = {};
    if (ends !== undefined) record.end = this.#ended(ends);
    if (this.#resources.get(keyOf(resource)) === resource) record.drop = this.#dropped(resource);
    return this.#append(record);
  }

  /** Keeps a resource as an old copy waiting for deletion, making way for its replacement; answers the copy. */
  async retire(resource: ResourceState): Promise<ResourceState> {
    const retired = { ...resource, delete: true };
    const record: JournalRecord = { drop: this.#dropped(resource), put: retired };
    this.#resources.set(keyOf(retired), retired);
    await this.#append(record);
    return retired;
  }

  /**
   * Records an operation about to start; resolves once it is on disk. Returns what `end` takes. `ends` is an earlier
   * operation this one takes over, ended in the same record.
   */
  begin(op: PendingOperation, { ends }: { ends?: string | undefined } = {}): { id: string; recorded: Promise<void> } {
    const id = operationId();
    const record: JournalRecord = {};
    if (ends !== undefined) record.end = this.#ended(ends);
    this.#pending.set(id, op);
    record.begin = { ...op, id };
    return { id, recorded: this.#append(record) };
  }

  /** Records that an operation finished (whatever its outcome); durable with the next change awaited. */
  end(id: string): Promise<void> {
    return this.#append({ end: this.#ended(id) });
  }

  /** Keeps an operation pending, with why its outcome is not known (the next run reports it and looks again). */
  keepPending(id: string, reason: string): Promise<void> {
    const op = this.#pending.get(id);
    if (!op) return Promise.resolve();
    const kept = { ...op, reason };
    this.#pending.set(id, kept);
    return this.#append({ begin: { ...kept, id } });
  }

  #ended(id: string): string {
    this.#pending.delete(id);
    return id;
  }

  #dropped(resource: ResourceState): string {
    const key = keyOf(resource);
    this.#resources.delete(key);
    return key;
  }

  /** Operations begun and not ended, each with the id `end` takes. */
  pendingById(): [string, PendingOperation][] {
    return [...this.#pending];
  }

  /** Appends a record; a caller that does not wait for it learns of a failed write from the next one it awaits. */
  #append(record: JournalRecord): Promise<void> {
    if (Object.keys(record).length === 0) return Promise.resolve();
    const sealed = this.#seal(record);
    // A journal is replayed over its state file, which must exist first: it holds the salt of the journal's secrets.
    this.#fileWritten ??= this.#hasFile ? Promise.resolve() : writeAtomically(this.path, this.#serialize((v) => this.crypter.sealValue(v)));
    const appended = this.#fileWritten.then(() => this.#journal.append(sealed));
    appended.catch(() => undefined);
    return appended;
  }

  #seal({ end, drop, put, begin }: JournalRecord): JournalRecord {
    const seal = (m: PropertyMap) => this.crypter.sealValue(m as Value) as PropertyMap;
    // In the order they apply: a record cut short still names the operation it ends first.
    return {
      ...(end !== undefined ? { end } : {}),
      ...(drop !== undefined ? { drop } : {}),
      ...(put ? { put: { ...put, inputs: seal(put.inputs), outputs: seal(put.outputs) } } : {}),
      ...(begin ? { begin: { ...begin, resource: { ...begin.resource, inputs: seal(begin.resource.inputs) } } } : {}),
    };
  }

  /** At the end of a run: writes the whole state file and drops the journal, unless nothing was recorded. */
  async compact(): Promise<void> {
    // Nothing recorded since the state file was written: it is current.
    if (this.#fileWritten === undefined && !this.#replayed) return;
    await this.save();
  }

  /** Writes the whole state file now (atomically) and drops the journal it then holds. */
  async save(): Promise<void> {
    await this.#fileWritten?.catch(() => undefined);
    await this.#journal.settled();
    // The file this run started from was read whole: it is kept as the previous good state, then replaced.
    if (this.#fileGood) await copyAtomically(this.path, backupPath(this.path));
    this.#fileGood = false;
    await writeAtomically(this.path, this.#serialize((v) => this.crypter.sealValue(v)));
    await this.#journal.remove();
  }

  /** Lets go of the journal's file, which stays open between writes: once a run is done with the state, however it ends. */
  async close(): Promise<void> {
    await this.#fileWritten?.catch(() => undefined);
    await this.#journal.close();
  }

  /** The state as `pulumi stack export` writes it: secrets encrypted, or in plaintext with showSecrets. */
  export({ showSecrets }: { showSecrets: boolean }): string {
    // Indented, as `pulumi stack export` prints it for people and diffs; the state file itself stays compact.
    return this.#serialize((v) => (showSecrets ? plaintextSecrets(v) : this.crypter.sealValue(v)), 4);
  }

  #serialize(sealValue: (v: Value) => Value, indent?: number): string {
    const seal = (m: PropertyMap) => sealValue(m as Value);
    const deployment: StateFile["deployment"] = {
      manifest: { time: new Date().toISOString(), magic: "", version: "pulumi-audience local engine" },
      secrets_providers: { type: "passphrase", state: { salt: this.crypter.saltState } },
      resources: dependencyOrder(this.resources).map((r) => ({ ...r, inputs: seal(r.inputs) as PropertyMap, outputs: seal(r.outputs) as PropertyMap })),
    };
    if (this.#pending.size > 0) {
      deployment.pending_operations = [...this.#pending].map(([id, op]) => ({ ...op, id, resource: { ...op.resource, inputs: seal(op.resource.inputs) as PropertyMap } }));
    }
    const file: StateFile = { version: 3, deployment };
    return `${JSON.stringify(file, null, indent)}\n`;
  }
}

const journalPath = (statePath: string) => `${statePath}.journal`;

/** Where the previous good state file is kept (as Pulumi keeps `<stack>.json.bak`). */
export const backupPath = (statePath: string) => `${statePath}.bak`;

/** What a message about a damaged state tells the user to do: restore the backup, if there is one. */
function restoreAdvice(statePath: string): string {
  const stack = basename(statePath, ".json");
  const backup = backupPath(statePath);
  if (existsSync(backup)) return `\`audience stack restore --stack ${stack}\` puts back the previous good state, kept in ${backup} (then run refresh: changes made since are not in it)`;
  return `no backup of it was kept (${backup}): remove it to start over, or import a \`pulumi stack export\` document with \`audience stack import --stack ${stack}\``;
}

// Operation ids come from random bytes drawn a page at a time: every step begins one.
let idBytes = Buffer.alloc(0);
let idAt = 0;
function operationId(): string {
  if (idAt + 8 > idBytes.length) {
    idBytes = randomBytes(4096);
    idAt = 0;
  }
  return idBytes.toString("hex", idAt, (idAt += 8));
}

function emptyState(crypter: PassphraseCrypter): unknown {
  return { version: 3, deployment: { secrets_providers: { type: "passphrase", state: { salt: crypter.saltState } }, resources: [] } };
}

/**
 * Puts the previous good state (`<stack>.json.bak`) back in place of the stack's state; the state file and journal it
 * replaces are set aside as `<name>.damaged-<time>`, not deleted. Answers the files set aside.
 */
export async function restoreBackup(statePath: string): Promise<string[]> {
  const backup = backupPath(statePath);
  let text: string;
  try {
    text = await readFile(backup, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") throw new StateError(`no backup of the stack's state at ${backup}: each run keeps one once the stack has a state file`);
    throw e;
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new StateError(`${backup}: not valid JSON (${(e as Error).message}); it cannot be restored`);
  }
  if (!parseStateFile(doc).success) throw new StateError(`${backup}: not a stack state of version 3; it cannot be restored`);
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const setAside: string[] = [];
  for (const path of [statePath, journalPath(statePath)]) {
    if (!existsSync(path)) continue;
    await rename(path, `${path}.damaged-${stamp}`);
    setAside.push(`${path}.damaged-${stamp}`);
  }
  await copyAtomically(backup, statePath);
  return setAside;
}

const tempPath = (path: string) => `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;

async function copyAtomically(from: string, to: string): Promise<void> {
  const tmp = tempPath(to);
  await copyFile(from, tmp);
  const file = await open(tmp, "r+");
  try {
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(tmp, to);
}

async function writeAtomically(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = tempPath(path);
  const file = await open(tmp, "w", 0o600);
  try {
    await file.writeFile(text);
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(tmp, path);
}

/** Stable order in which every resource comes after its parent, provider and dependencies. */
export function dependencyOrder(resources: ResourceState[]): ResourceState[] {
  const byUrn = new Map(resources.filter((r) => !r.delete).map((r) => [r.urn, r]));
  const placed = new Set<ResourceState>();
  const out: ResourceState[] = [];
  const visit = (r: ResourceState, path: Set<ResourceState>) => {
    if (placed.has(r) || path.has(r)) return;
    path.add(r);
    for (const urn of prerequisites(r)) {
      const dep = byUrn.get(urn);
      if (dep) visit(dep, path);
    }
    placed.add(r);
    out.push(r);
  };
  for (const r of resources) visit(r, new Set());
  return out;
}

/** Outputs as recorded: secret where the same input (or, on refresh, the old output) was, and where asked. */
export function recordedOutputs(resource: Pick<ResourceState, "inputs" | "additionalSecretOutputs">, outputs: PropertyMap, secretsFrom: PropertyMap = resource.inputs): PropertyMap {
  return markSecret(annotateSecrets(outputs, secretsFrom), resource.additionalSecretOutputs ?? []);
}

/** URNs a resource needs to exist first: parent, provider, dependencies and property dependencies. */
export function prerequisites(r: ResourceState): string[] {
  const urns = [...r.dependencies, ...Object.values(r.propertyDependencies ?? {}).flat()];
  if (r.parent) urns.push(r.parent);
  if (r.provider) urns.push(r.provider.slice(0, r.provider.lastIndexOf("::")));
  return [...new Set(urns)];
}

/** Who holds a stack's lock: written whole into a temporary file before that file becomes the lock. */
interface LockOwner {
  pid: number;
  host: string;
  /** Tells this taking of the lock from any other by the same process. */
  nonce: string;
}

/**
 * Takes the stack's lock file so two runs never write one state; returns its release. The lock appears with its
 * owner already in it (a temporary file linked into place), so no run ever reads an empty lock. A lock is taken over
 * only when its owner is provably gone: a process of this host that no longer runs.
 */
export async function lockStack(statePath: string): Promise<() => Promise<void>> {
  const lock = `${statePath}.lock`;
  await mkdir(dirname(lock), { recursive: true });
  const owner: LockOwner = { pid: process.pid, host: hostname(), nonce: randomBytes(8).toString("hex") };
  const mine = JSON.stringify(owner);
  const tmp = tempPath(lock);
  await writeAtomically(tmp, mine);
  try {
    for (let attempt = 0; attempt < 50; attempt++) {
      try {
        await link(tmp, lock);
        return async () => {
          // Released only while it is still this run's: a lock taken over by another run stays.
          if ((await readFile(lock, "utf8").catch(() => "")) === mine) await rm(lock, { force: true });
        };
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      }
      const text = await readFile(lock, "utf8").catch((e: NodeJS.ErrnoException) => (e.code === "ENOENT" ? undefined : Promise.reject(e)));
      if (text === undefined) continue; // released meanwhile
      const held = lockOwner(text);
      const gone = held !== undefined && held.host === hostname() && !isAlive(held.pid);
      if (!gone) {
        const who = held ? `process ${held.pid} on ${held.host}` : "an unknown process (the lock names no owner)";
        throw new StateError(`the stack is being changed by ${who} (lock ${lock}); wait for it, or remove the lock if that process is gone`);
      }
      if (!(await takeOver(lock, text, tmp))) await sleep(20);
    }
    throw new StateError(`cannot take the stack lock ${lock}: other runs keep taking it`);
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
}

/**
 * Removes a stale lock, if it is still the one judged stale. Takeovers are one at a time (a second lock, `.takeover`,
 * held meanwhile): two runs removing the same stale lock could otherwise remove the one a third had just taken.
 * `owner` is this run's owner file, linked as that second lock. Answers false when another takeover is under way.
 */
async function takeOver(lock: string, stale: string, owner: string): Promise<boolean> {
  const guard = `${lock}.takeover`;
  try {
    await link(owner, guard);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    // A takeover whose run died midway: its guard goes too once its owner is provably gone.
    const held = lockOwner(await readFile(guard, "utf8").catch(() => ""));
    if (held && held.host === hostname() && !isAlive(held.pid)) await unlink(guard).catch(() => undefined);
    return false;
  }
  try {
    // Under the guard nothing else removes the lock, and its gone owner cannot release it: still the stale one, it goes.
    if ((await readFile(lock, "utf8").catch(() => undefined)) === stale) await unlink(lock).catch(() => undefined);
    return true;
  } finally {
    await unlink(guard);
  }
}

function lockOwner(text: string): LockOwner | undefined {
  try {
    const parsed = JSON.parse(text) as Partial<LockOwner>;
    return typeof parsed.pid === "number" && typeof parsed.host === "string" ? (parsed as LockOwner) : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
