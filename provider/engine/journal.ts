// An append-only file of JSON records, one a line. Records appended while a write is under way go out together
// in the next write, with one fsync for all of them (group commit); each append resolves once its record is on disk.
import { mkdir, open, readFile, rm } from "node:fs/promises";
import { dirname } from "node:path";

export class JournalError extends Error {
  override name = "JournalError";
}

export class Journal {
  readonly path: string;
  #dir: Promise<unknown> | undefined;
  #queued: { line: string; done: () => void; failed: (e: Error) => void }[] = [];
  /** The writer while it runs: it takes what is queued, batch after batch, until nothing is left. */
  #writer: Promise<void> | undefined;

  constructor(path: string) {
    this.path = path;
  }

  /** The records on disk, oldest first. A last line cut short by a crash is left out. */
  static async read(path: string): Promise<unknown[]> {
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw e;
    }
    const lines = text.split("\n");
    const records: unknown[] = [];
    for (const [i, line] of lines.entries()) {
      if (line === "") continue;
      try {
        records.push(JSON.parse(line));
      } catch (e) {
        // Only the last line can be torn (a crash mid-write): anything else is damage.
        if (i === lines.length - 1) break;
        throw new JournalError(`${path}, line ${i + 1}: not valid JSON (${(e as Error).message})`);
      }
    }
    return records;
  }

  /** Appends a record; resolves once it is on disk. Records reach the disk in the order they were appended. */
  append(record: unknown): Promise<void> {
    const line = `${JSON.stringify(record)}\n`;
    const written = new Promise<void>((done, failed) => this.#queued.push({ line, done, failed }));
    this.#writer ??= this.#write();
    return written;
  }

  async #write(): Promise<void> {
    while (this.#queued.length > 0) {
      const batch = this.#queued;
      this.#queued = [];
      try {
        await (this.#dir ??= mkdir(dirname(this.path), { recursive: true }));
        const file = await open(this.path, "a", 0o600);
        try {
          await file.write(batch.map((b) => b.line).join(""));
          await file.datasync();
        } finally {
          await file.close();
        }
        for (const b of batch) b.done();
      } catch (e) {
        for (const b of batch) b.failed(e as Error);
      }
    }
    // Cleared in the same turn as the last look at the queue, so an append never finds a writer that is done.
    this.#writer = undefined;
  }

  /** Waits for what is queued, then removes the file (its records are kept elsewhere by then). */
  async remove(): Promise<void> {
    await this.settled();
    await rm(this.path, { force: true });
  }

  /** Resolves once every record appended so far is written (or failed). */
  async settled(): Promise<void> {
    while (this.#writer) await this.#writer;
  }
}
