// An append-only file of JSON records, one a line. Records appended while a write is under way go out together
// in the next write, with one fsync for all of them (group commit); each append resolves once its record is on disk.
// The file stays open between writes, so a batch costs a write and a sync, not an open and a close too: close() or
// remove() lets it go.
import { createHash } from "node:crypto";
import { mkdir, open, readFile, rm, truncate, type FileHandle } from "node:fs/promises";
import { dirname } from "node:path";
import { z } from "zod";
import { storedOperation, storedResource, type PendingOperation, type ResourceState } from "./state-file.ts";

export class JournalError extends Error {
  override name = "JournalError";
}

/** What a journal file holds: its records and, when a crash cut its last line short, that line. */
export interface JournalContents {
  records: unknown[];
  /** The last line, cut short by a crash mid-write: not a record. */
  torn?: string;
  /** Bytes of whole records: where the next record goes (the torn line is cut off first). */
  wholeBytes: number;
  /** The last whole record lacks its line end (a crash between the record and its newline). */
  unterminated: boolean;
}

export class Journal {
  readonly path: string;
  #dir: Promise<unknown> | undefined;
  /** What the next write must do first to what a crash left: cut a torn line off, end an unterminated one. */
  #repair: Pick<JournalContents, "wholeBytes" | "unterminated"> | undefined;
  #queued: { line: string; done: () => void; failed: (e: Error) => void }[] = [];
  /** The writer while it runs: it takes what is queued, batch after batch, until nothing is left. */
  #writer: Promise<void> | undefined;
  /** The file, opened for appending by the first write and kept open until close() or remove(). */
  #file: FileHandle | undefined;

  /** `found`: what read() found in the file, so appends go after its whole records. */
  constructor(path: string, found?: JournalContents) {
    this.path = path;
    if (found && (found.torn !== undefined || found.unterminated)) this.#repair = { wholeBytes: found.wholeBytes, unterminated: found.unterminated };
  }

  /** The records on disk, oldest first. A last line cut short by a crash is no record: it is returned as `torn`. */
  static async read(path: string): Promise<JournalContents> {
    let bytes: Buffer;
    try {
      bytes = await readFile(path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return { records: [], wholeBytes: 0, unterminated: false };
      throw e;
    }
    const end = bytes.lastIndexOf(0x0a) + 1;
    const lines = bytes.subarray(0, end).toString("utf8").split("\n");
    const records: unknown[] = [];
    for (const [i, line] of lines.entries()) {
      if (line === "") continue;
      try {
        records.push(JSON.parse(line));
      } catch (e) {
        throw new JournalError(`${path}, line ${i + 1}: not valid JSON (${(e as Error).message})`);
      }
    }
    if (end === bytes.length) return { records, wholeBytes: end, unterminated: false };
    // Only the last line can be cut short (a crash mid-write); one whole but for its newline is a record.
    const last = bytes.subarray(end).toString("utf8");
    try {
      records.push(JSON.parse(last));
      return { records, wholeBytes: bytes.length, unterminated: true };
    } catch {
      return { records, torn: last, wholeBytes: end, unterminated: false };
    }
  }

  /** Appends a record; resolves once it is on disk. Records reach the disk in the order they were appended. */
  append(record: unknown): Promise<void> {
    return this.appendText(JSON.stringify(record));
  }

  /** Appends a record already written as JSON text (one line). */
  appendText(json: string): Promise<void> {
    const line = `${json}\n`;
    const written = new Promise<void>((done, failed) => this.#queued.push({ line, done, failed }));
    this.#writer ??= this.#write();
    return written;
  }

  async #write(): Promise<void> {
    while (this.#queued.length > 0) {
      const batch = this.#queued;
      this.#queued = [];
      try {
        await (this.#dir ??= mkdir(dirname(this.path), { recursive: true, mode: 0o700 }));
        const repair = this.#repair;
        if (repair) await truncate(this.path, repair.wholeBytes);
        this.#repair = undefined;
        this.#file ??= await open(this.path, "a", 0o600);
        await this.#file.write((repair?.unterminated ? "\n" : "") + batch.map((b) => b.line).join(""));
        await this.#file.datasync();
        for (const b of batch) b.done();
      } catch (e) {
        // The next batch starts from a file opened anew, as after a crash.
        await this.#release().catch(() => undefined);
        for (const b of batch) b.failed(e as Error);
      }
    }
    // Cleared in the same turn as the last look at the queue, so an append never finds a writer that is done.
    this.#writer = undefined;
  }

  /** Waits for what is queued, then removes the file (its records are kept elsewhere by then). */
  async remove(): Promise<void> {
    await this.close();
    await rm(this.path, { force: true });
  }

  /** Waits for what is queued, then closes the file; a later append opens it again. */
  async close(): Promise<void> {
    await this.settled();
    await this.#release();
  }

  async #release(): Promise<void> {
    const file = this.#file;
    this.#file = undefined;
    await file?.close();
  }

  /** Resolves once every record appended so far is written (or failed). */
  async settled(): Promise<void> {
    while (this.#writer) await this.#writer;
  }
}

/** Where a stack's journal is kept: beside its state file. */
export const journalPath = (statePath: string) => `${statePath}.journal`;

// One record is everything one step outcome changed (an operation ended and its resource put, say): it reaches the
// disk whole or not at all. Each carries its place in the stack's history (`seq`, counted on from the state file's
// `integrity.journal`) and a checksum of itself (`sum`), so a record lost, damaged or out of place is found.
export const journalRecord = z.strictObject({
  seq: z.number().int().positive().optional(),
  sum: z.string().optional(),
  end: z.string().optional(),
  drop: z.string().optional(),
  put: storedResource.optional(),
  begin: storedOperation.extend({ id: z.string() }).optional(),
  run: z.strictObject({ pid: z.number().int(), host: z.string(), nonce: z.string(), since: z.number() }).optional(),
}).refine((r) => Object.keys(r).some((k) => k !== "seq" && k !== "sum"), "an empty record");

/** The run that writes a journal: claimed by its first record, before the run sends any request. */
export interface RunClaim {
  pid: number;
  host: string;
  /** Tells this run from any other of the same process. */
  nonce: string;
  /** When the run began (ms since the epoch): what it may have made was made after. */
  since: number;
}

/**
 * A record of the journal: what one change did, applied in this order: an operation ended, a resource removed (by
 * key), a resource's new state, an operation begun. `run` is a run's claim of the stack.
 */
export interface JournalRecord {
  end?: string;
  drop?: string;
  put?: ResourceState;
  begin?: PendingOperation & { id: string };
  run?: RunClaim;
}

/** A record's checksum: of its place and its content, as written. */
function checksum(seq: number, content: string): string {
  return createHash("sha256").update(`${seq}:${content}`).digest("hex").slice(0, 16);
}

/** A record as written (JSON text): its place, its checksum, then what it records. */
export function numbered(seq: number, record: object): string {
  const content = JSON.stringify(record);
  const head = `{"seq":${seq},"sum":"${checksum(seq, content)}"`;
  return content === "{}" ? `${head}}` : `${head},${content.slice(1)}`;
}

/** Whether a record read back is whole as written: its checksum matches. Records without one predate checksums. */
export function intact(raw: unknown): boolean {
  if (typeof raw !== "object" || raw === null || !("sum" in raw)) return true;
  const { seq, sum, ...record } = raw as { seq?: unknown; sum?: unknown };
  return typeof seq === "number" && sum === checksum(seq, JSON.stringify(record));
}
