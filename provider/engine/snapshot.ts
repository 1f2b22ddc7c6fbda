// The stack's snapshot: the resources it holds and the operations in flight, kept in the stack's state file in the
// layout of `pulumi stack export`, secrets sealed with the passphrase provider, and in the journal of the changes
// made since the file was written. The file is written whole to a temporary file renamed over the old one, so a
// crash never leaves half a state.
import { createHash, randomBytes } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { hostname } from "node:os";
import { jsonEqual } from "../../sdk/contract/merge-patch.ts";
import type { z } from "zod";
import { writeAtomically } from "./atomic-files.ts";
import { backupPath, restoreAdvice } from "./backups.ts";
import { intact, Journal, journalPath, journalRecord, numbered, type JournalContents, type JournalRecord, type RunClaim } from "./journal.ts";
import { isAlive, StackBusyError } from "./lock.ts";
import { dependencyOrder } from "./ordering.ts";
import { PassphraseCrypter } from "./secrets.ts";
import { stackCommandFor, type StackPlace } from "./stack-files.ts";
import { checkIntegrity, EDIT_ADVICE, EMPTY_STATE, parseStateFile, stateFileText, StateError, where, type PendingOperation, type ResourceState, type StateFile, type StoredResource, type storedOperation } from "./state-file.ts";
import { annotateSecrets, markSecret, plaintextSecrets, SECRET_SIG, SIG_KEY, type PropertyMap, type Value } from "../protocol/values.ts";

/** Live resources by URN; copies waiting for deletion by URN and id, as several may wait at once. */
function keyOf(r: Pick<ResourceState, "urn" | "delete" | "id">): string {
  return r.delete ? `${r.urn}#${r.id ?? ""}` : r.urn;
}

/**
 * The stack's state. Each change is one record appended to a journal next to the state file (fsynced, shared with
 * changes made at the same time), so what a step writes does not grow with the stack; `compact()` folds the journal
 * into the state file at the end of a run, and `load()` replays a journal a crash left behind. Every record is a
 * blind write of one key, so replaying a journal over a state that already holds it changes nothing. Records are
 * numbered on from the file's `integrity.journal` and checksummed; a run's first record is its claim of the stack.
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
  /** The salt state the state file holds (none for a stack that never held a secret). */
  #fileSalt: string | undefined;
  /** Whether load() found a journal: compact() then folds it in even if this run changes nothing. */
  #replayed = false;
  /** The `seq` of the last journal record this state holds (folded into the file or replayed); the next goes on from it. */
  #seq = 0;
  /** This run's claim of the stack, its journal's first record. */
  #claim: RunClaim | undefined;
  /** Whether this run recorded anything besides its claim. */
  #changed = false;
  /**
   * A run died while changing the stack, which began then (ms since the epoch): what it made may be missing from the
   * state (its journal was lost or cut), so a create of a resource the state does not hold first looks for it.
   */
  interruptedSince: number | undefined;

  /** The stack as the command line that loaded it named it, where known: the commands messages print name it so. */
  #place: StackPlace | undefined;

  /** `audience <words>` for this stack, as a message tells the user to run it. */
  command(words: string): string {
    return stackCommandFor(this.path, words, this.#place);
  }

  /** What loading found that the user should know: a journal record a crash cut short. */
  readonly warnings: string[] = [];

  private constructor(path: string, crypter: PassphraseCrypter, resources: ResourceState[], pending: Map<string, PendingOperation>, hasFile: boolean, journal?: JournalContents) {
    this.path = path;
    this.#hasFile = hasFile;
    this.crypter = crypter;
    this.#resources = new Map(resources.map((r) => [keyOf(r), r]));
    this.#pending = pending;
    this.#journal = new Journal(journalPath(path), journal);
  }

  /**
   * Reads the state file and replays its journal, or starts an empty stack whose secrets use the given salt (or a new
   * one). `claim`: this run is about to change the stack: it records its claim first, and is refused if another run is
   * changing it (a lock file can be removed, the journal says who writes it). `interruptedSince`: the lock was taken
   * from a run that died then (see StackLock). `place`: the stack as the command line names it, for the commands
   * messages print.
   */
  static async load(path: string, passphrase: string, saltForNewStack?: string, { claim = false, interruptedSince, place }: { claim?: boolean; interruptedSince?: number | undefined; place?: StackPlace } = {}): Promise<Snapshot> {
    const advice = restoreAdvice(path, place);
    const { text, journal, identity } = await readConsistently(path, advice);
    if (text === undefined && (journal.records.length > 0 || journal.torn !== undefined)) {
      throw new StateError(`${path} is missing, but its journal ${journalPath(path)} is there: the journal only holds what changed since the state file was written, so it cannot stand alone. Put the state file back; ${advice}`);
    }
    let state: Snapshot;
    if (text === undefined) {
      state = new Snapshot(path, PassphraseCrypter.lazy(passphrase, saltForNewStack), [], new Map(), false, journal);
    } else {
      state = await Snapshot.#open(text, journal, { path, passphrase, saltForNewStack, source: path, advice, integrity: true });
    }
    state.#place = place;
    if (journal.torn !== undefined) state.#warnTorn(journal.torn);
    if (claim) {
      await state.#claimStack(journal, identity);
      const lost = state.interruptedSince ?? interruptedSince;
      if (lost !== undefined) state.interruptedSince = Math.min(lost, interruptedSince ?? lost);
    }
    return state;
  }

  /**
   * Refuses when another run is changing the stack (its claim in the journal, its process alive); notes a run that
   * died; then records this run's claim and reads the journal back: of two runs that claimed at once, the first on
   * disk goes on, the other stops before sending anything.
   */
  async #claimStack(journal: JournalContents, identity: string): Promise<void> {
    const claims = runClaims(journal.records);
    const live = claims.find((c) => claimAlive(c.run));
    if (live) throw new StackBusyError(`the stack is being changed by process ${live.run.pid} on ${live.run.host}, which began at ${new Date(live.run.since).toISOString()} (its journal ${journalPath(this.path)} names it, whether or not a lock file is there); wait for it to finish`);
    const died = claims.filter((c) => c.seq > this.#folded).map((c) => c.run.since);
    if (died.length > 0) this.interruptedSince = Math.min(...died);
    const claim: RunClaim = { pid: process.pid, host: hostname(), nonce: randomBytes(8).toString("hex"), since: Date.now() };
    const seq = this.#seq + 1;
    ownClaims.add(claim.nonce);
    this.#claim = claim;
    await this.#append({ run: claim });
    const now = (await Journal.read(journalPath(this.path)).catch(() => ({ records: [] as unknown[] }))).records;
    const first = now.find((r) => (r as { seq?: unknown }).seq === seq && (r as { run?: unknown }).run !== undefined) as { run?: RunClaim } | undefined;
    // What was read is still what is there: the state file not written since (by a run that ended meanwhile, its
    // liveness judged too late), the journal the same one, not a new one begun by this claim.
    const unchanged = (!this.#hasFile || (await fileIdentity(this.path).catch(() => "unknown")) === identity)
      && journal.records.every((r, i) => now[i] !== undefined && recordMark(now[i]) === recordMark(r));
    if (!unchanged) {
      ownClaims.delete(claim.nonce);
      this.#claim = undefined;
      throw new StackBusyError("another run changed the stack while this run read it; this run stopped before sending anything: run it again");
    }
    if (first?.run?.nonce !== claim.nonce) {
      ownClaims.delete(claim.nonce);
      this.#claim = undefined;
      const who = first?.run ? `process ${first.run.pid} on ${first.run.host}` : "another run, which has since folded its journal";
      throw new StackBusyError(`the stack was claimed at the same moment by ${who}; this run stopped before sending anything: run it again once that one is done`);
    }
  }

  /** The `seq` the state file says it holds up to. */
  #folded = 0;

  /** A journal's last record cut short: its change is not applied, so the operation it would have ended stays pending. */
  #warnTorn(torn: string): void {
    const ended = /^\{(?:"seq":\d+,"sum":"[0-9a-f]*",)?"end":"([0-9a-f]+)"/.exec(torn)?.[1];
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
  static async #open(text: string | undefined, journal: JournalContents, { path, passphrase, saltForNewStack, source, advice, integrity = false }: { path: string; passphrase: string; saltForNewStack?: string | undefined; source: string; advice?: string; integrity?: boolean }): Promise<Snapshot> {
    let doc: unknown;
    try {
      doc = text === undefined ? EMPTY_STATE : JSON.parse(text);
    } catch (e) {
      throw new StateError(`${source}: not valid JSON (${(e as Error).message})${advice ? `; ${advice}` : ""}`);
    }
    const parsed = parseStateFile(doc);
    if (!parsed.success) {
      const problems = parsed.error.issues.slice(0, 3).map((i) => `${where(i.path)}: ${i.message}`).join("; ");
      throw new StateError(`${source}: not a stack state of version 3 with a passphrase secrets provider (${problems})${advice ? `; ${advice}` : ""}`);
    }
    let checked;
    try {
      checked = text === undefined ? undefined : checkIntegrity(text, doc, source);
    } catch (e) {
      throw new StateError(`${(e as Error).message}${advice ? `; or ${advice}` : ""}`);
    }
    // A state file of this engine's own without its checksum: the member was removed by hand.
    if (integrity && checked === undefined && journal.records.some((r) => (r as { seq?: unknown }).seq !== undefined)) {
      throw new StateError(`${source}: the state has no checksum, though its journal was written by a run that keeps one: it was edited or replaced by hand${advice ? `; ${advice}` : ""}`);
    }
    const manifest = parsed.data.deployment["manifest"];
    if (integrity && checked === undefined && typeof manifest === "object" && manifest !== null && (manifest as { version?: unknown }).version === MANIFEST_VERSION) {
      throw new StateError(`${source}: the state has no checksum, though this engine wrote it with one: it was edited or replaced by hand. ${EDIT_ADVICE}${advice ? `; or ${advice}` : ""}`);
    }
    const { deployment } = parsed.data;
    const salt = deployment.secrets_providers?.state?.salt;
    const crypter = PassphraseCrypter.lazy(passphrase, salt ?? saltForNewStack);
    // The key is derived (and the passphrase checked) only for a state that holds a secret.
    if (text?.includes('"ciphertext"') || journal.records.some(holdsCiphertext)) await crypter.unlock();
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
    state.#fileSalt = text === undefined ? undefined : salt;
    state.#replayed = journal.records.length > 0 || journal.torn !== undefined;
    state.#folded = state.#seq = checked?.journal ?? 0;
    const at = (i: number) => `${journalPath(path)}, record ${i + 1}`;
    for (const [i, record] of journal.records.entries()) {
      if (!intact(record)) throw new StateError(`${at(i)}: its checksum does not match what it holds: the journal was damaged; ${advice ?? restoreAdvice(path)}`);
      const parsedRecord = journalRecord.safeParse(record);
      if (!parsedRecord.success) throw new StateError(`${at(i)}: ${parsedRecord.error.issues[0]?.message}; ${advice ?? restoreAdvice(path)}`);
      const r = parsedRecord.data;
      if (r.seq === undefined) {
        if (checked) throw new StateError(`${at(i)}: it has no sequence number, though the state file keeps count: the journal was damaged or replaced; ${advice ?? restoreAdvice(path)}`);
      } else if (r.seq <= state.#seq) {
        // Already in the state file (a run that stopped between writing it and removing the journal), or the claim
        // of a run that lost the race to claim the stack: nothing to apply.
        if (r.seq > state.#folded && r.run === undefined) throw new StateError(`${at(i)}: number ${r.seq} comes twice: the journal was damaged; ${advice ?? restoreAdvice(path)}`);
        continue;
      } else if (r.seq !== state.#seq + 1) {
        const missing = r.seq - state.#seq - 1;
        throw new StateError(`${at(i)}: number ${r.seq} follows ${state.#seq}: ${missing} record${missing === 1 ? " is" : "s are"} missing, so the state cannot say what the stack holds; ${advice ?? restoreAdvice(path)}`);
      } else {
        state.#seq = r.seq;
      }
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
    // A step that changed nothing the file would hold (a no-op up) writes nothing, as the executor decides it.
    if (!previous || !jsonEqual(previous, resource)) record.put = resource;
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
    if (record.run === undefined) this.#changed = true;
    const sealed = this.#seal(record);
    // A journal is replayed over its state file, which must exist first and hold the salt of the journal's secrets:
    // written before the first record, and again (once) when a first secret made a new stack's salt. It then holds
    // every record so far.
    const salt = this.crypter.saltState;
    if ((this.#fileWritten === undefined && !this.#hasFile) || salt !== this.#fileSalt) {
      this.#fileSalt = salt;
      const text = this.#fileText(this.#seq);
      const before = this.#fileWritten ?? Promise.resolve();
      this.#fileWritten = before.then(() => this.#journal.settled()).then(() => writeAtomically(this.path, text));
    }
    this.#fileWritten ??= Promise.resolve();
    const line = numbered(++this.#seq, sealed);
    const appended = this.#fileWritten.then(() => this.#journal.appendText(line));
    appended.catch(() => undefined);
    return appended;
  }

  #seal({ end, drop, put, begin, run }: JournalRecord): JournalRecord {
    const seal = (m: PropertyMap) => this.crypter.sealValue(m as Value) as PropertyMap;
    // In the order they apply: a record cut short still names the operation it ends first.
    return {
      ...(end !== undefined ? { end } : {}),
      ...(drop !== undefined ? { drop } : {}),
      ...(put ? { put: { ...put, inputs: seal(put.inputs), outputs: seal(put.outputs) } } : {}),
      ...(begin ? { begin: { ...begin, resource: { ...begin.resource, inputs: seal(begin.resource.inputs) } } } : {}),
      ...(run ? { run } : {}),
    };
  }

  /** At the end of a run: writes the whole state file and drops the journal, unless nothing was recorded. */
  async compact(): Promise<void> {
    // Nothing recorded since the state file was written but this run's claim: it is current, the claim goes.
    if (!this.#changed && !this.#replayed) {
      if (this.#claim) await this.#fileWritten?.then(() => this.#journal.remove(), () => undefined);
      return;
    }
    await this.save();
  }

  /**
   * Writes the whole state file now (atomically), and the same as its backup, the last good copy; then drops the
   * journal it then holds.
   */
  async save(): Promise<void> {
    await this.#fileWritten?.catch(() => undefined);
    await this.#journal.settled();
    const text = this.#fileText(this.#seq);
    await writeAtomically(this.path, text);
    await writeAtomically(backupPath(this.path), text);
    await this.#journal.remove();
    this.#folded = this.#seq;
    this.#changed = this.#replayed = false;
  }

  /** Lets go of the journal's file, which stays open between writes: once a run is done with the state, however it ends. */
  async close(): Promise<void> {
    await this.#fileWritten?.catch(() => undefined);
    await this.#journal.close();
    if (this.#claim) ownClaims.delete(this.#claim.nonce);
  }

  /** The state as `pulumi stack export` writes it: secrets encrypted, or in plaintext with showSecrets. */
  export({ showSecrets }: { showSecrets: boolean }): string {
    // Indented, as `pulumi stack export` prints it for people and diffs; the state file itself stays compact.
    return this.#serialize((v) => (showSecrets ? plaintextSecrets(v) : this.crypter.sealValue(v)), 4);
  }

  /** The state file's text, holding the journal up to `folded`. */
  #fileText(folded: number): string {
    return stateFileText(this.#deployment((v) => this.crypter.sealValue(v)), folded);
  }

  #serialize(sealValue: (v: Value) => Value, indent?: number): string {
    const file: StateFile = { version: 3, deployment: this.#deployment(sealValue) };
    return `${JSON.stringify(file, null, indent)}\n`;
  }

  #deployment(sealValue: (v: Value) => Value): StateFile["deployment"] {
    const seal = (m: PropertyMap) => sealValue(m as Value);
    // Sealed first: a first secret makes a new stack's salt state, which the file then names.
    const resources = dependencyOrder(this.resources).map((r) => ({ ...r, inputs: seal(r.inputs) as PropertyMap, outputs: seal(r.outputs) as PropertyMap }));
    const pending = [...this.#pending].map(([id, op]) => ({ ...op, id, resource: { ...op.resource, inputs: seal(op.resource.inputs) as PropertyMap } }));
    const salt = this.crypter.saltState;
    const deployment: StateFile["deployment"] = {
      manifest: { time: new Date().toISOString(), magic: MANIFEST_MAGIC, version: MANIFEST_VERSION },
      // A stack that never held a secret has no salt (its key is never derived): Pulumi reads such a state too.
      ...(salt !== undefined ? { secrets_providers: { type: "passphrase", state: { salt } } } : {}),
      resources,
    };
    if (pending.length > 0) deployment.pending_operations = pending;
    return deployment;
  }
}

/** Claims of runs in this process not yet closed: a claim naming this process is alive only if it is one of them. */
const ownClaims = new Set<string>();

function claimAlive(claim: RunClaim): boolean {
  if (claim.host !== hostname()) return false; // another host's run cannot be checked: treated as one that died
  return claim.pid === process.pid ? ownClaims.has(claim.nonce) : isAlive(claim.pid);
}

/** The claims of runs that wrote the journal, with their place; a claim that lost the race (a repeated place) left out. */
function runClaims(records: unknown[]): { seq: number; run: RunClaim }[] {
  const claims = new Map<number, RunClaim>();
  for (const r of records as { seq?: number; run?: RunClaim }[]) {
    if (r.run !== undefined && typeof r.seq === "number" && !claims.has(r.seq)) claims.set(r.seq, r.run);
  }
  return [...claims].map(([seq, run]) => ({ seq, run }));
}

/** Which state file is at `path`: another one once a run has written it. */
function fileIdentity(path: string): Promise<string> {
  return stat(path).then((s) => `${s.ino}:${s.size}:${s.mtimeMs}`, (e: NodeJS.ErrnoException) => (e.code === "ENOENT" ? "none" : Promise.reject(e)));
}

/** A record's place and checksum, as read back. */
const recordMark = (r: unknown) => `${String((r as { seq?: unknown }).seq)}:${String((r as { sum?: unknown }).sum)}`;

/**
 * The state file's text and its journal as one read: the file is looked at before and after the journal is read, and
 * read again if another process replaced it meanwhile (a run folding its journal into it).
 */
async function readConsistently(path: string, advice: string): Promise<{ text: string | undefined; journal: JournalContents; identity: string }> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const before = await fileIdentity(path).catch(() => "unknown");
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
      throw new StateError(isDir ? `${journalPath(path)} is a directory: the stack's journal is kept in a file of that name; move the directory away` : `${e.message}; ${advice}`);
    });
    if ((await fileIdentity(path).catch(() => "unknown")) === before) return { text, journal, identity: before };
  }
  throw new StackBusyError(`${path} kept changing while it was read: another run is changing the stack; wait for it to finish`);
}

/** What the manifest names since states carry a checksum: one that names it and has none was edited by hand. */
const MANIFEST_VERSION = "pulumi-audience local engine, checksummed";
// As Pulumi's Manifest.NewMagic: the SHA-256 of the version. `pulumi stack import` refuses a state whose magic does
// not match its version ("magic cookie mismatch; possible tampering/corruption detected").
const MANIFEST_MAGIC = createHash("sha256").update(MANIFEST_VERSION).digest("hex");

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

/** Outputs as recorded: secret where the same input (or, on refresh, the old output) was, and where asked. */
export function recordedOutputs(resource: Pick<ResourceState, "inputs" | "additionalSecretOutputs">, outputs: PropertyMap, secretsFrom: PropertyMap = resource.inputs): PropertyMap {
  return markSecret(annotateSecrets(outputs, secretsFrom), resource.additionalSecretOutputs ?? []);
}

/** Whether a journal record holds an encrypted secret. */
function holdsCiphertext(v: unknown): boolean {
  if (v === null || typeof v !== "object") return false;
  if (Array.isArray(v)) return v.some(holdsCiphertext);
  const o = v as Record<string, unknown>;
  return (o[SIG_KEY] === SECRET_SIG && typeof o["ciphertext"] === "string") || Object.values(o).some(holdsCiphertext);
}
