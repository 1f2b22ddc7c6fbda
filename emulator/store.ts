// Durable record store: every record is a JSON value under (kind, key). Reads come from memory; a write is
// collected in a transaction and, with a data directory, committed to SQLite in one atomic, fsynced
// transaction before the request is answered.
import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { DatabaseSync } from "node:sqlite";

/** What a record is; records of different kinds may share a key. */
export type RecordKind = "account" | "key" | "resource" | "outbox" | "usage" | "setting" | "upload" | "secret";

type Change = { kind: RecordKind; key: string; value: unknown; previous: unknown };

export class RecordStore {
  private readonly data = new Map<RecordKind, Map<string, unknown>>();
  private pending: Change[] | undefined;
  private readonly db: DatabaseSync | undefined;

  constructor(dataDir?: string) {
    if (dataDir === undefined) return;
    mkdirSync(dataDir, { recursive: true });
    // Loaded only when persistence is asked for: node:sqlite is built in, but still flagged experimental.
    const { DatabaseSync: Database } = createRequire(import.meta.url)("node:sqlite") as typeof import("node:sqlite");
    this.db = new Database(join(dataDir, "emulator.sqlite"));
    this.db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;");
    this.db.exec("CREATE TABLE IF NOT EXISTS records (kind TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (kind, key))");
    const rows = this.db.prepare("SELECT kind, key, value FROM records").all() as { kind: RecordKind; key: string; value: string }[];
    for (const row of rows) this.map(row.kind).set(row.key, JSON.parse(row.value));
  }

  private map(kind: RecordKind): Map<string, unknown> {
    let m = this.data.get(kind);
    if (!m) this.data.set(kind, (m = new Map()));
    return m;
  }

  get<T>(kind: RecordKind, key: string): T | undefined {
    return this.map(kind).get(key) as T | undefined;
  }

  values<T>(kind: RecordKind, prefix = ""): T[] {
    const out: T[] = [];
    for (const [key, value] of this.map(kind)) if (key.startsWith(prefix)) out.push(value as T);
    return out;
  }

  entries<T>(kind: RecordKind): [string, T][] {
    return [...this.map(kind)] as [string, T][];
  }

  set(kind: RecordKind, key: string, value: unknown): void {
    const copy = structuredClone(value);
    const previous = this.map(kind).get(key);
    this.map(kind).set(key, copy);
    this.record({ kind, key, value: copy, previous });
  }

  delete(kind: RecordKind, key: string): void {
    const previous = this.map(kind).get(key);
    this.map(kind).delete(key);
    this.record({ kind, key, value: undefined, previous });
  }

  /** Runs `fn`; every write it makes is persisted together, or (on a throw) none is kept. */
  transaction<T>(fn: () => T): T {
    if (this.pending) return fn();
    const changes: Change[] = (this.pending = []);
    try {
      const result = fn();
      this.flush(changes);
      return result;
    } catch (error) {
      for (const c of changes.reverse()) {
        if (c.previous === undefined) this.map(c.kind).delete(c.key);
        else this.map(c.kind).set(c.key, c.previous);
      }
      throw error;
    } finally {
      this.pending = undefined;
    }
  }

  clear(): void {
    this.transaction(() => {
      for (const [kind, m] of this.data) for (const key of [...m.keys()]) this.delete(kind, key);
    });
  }

  close(): void {
    this.db?.close();
  }

  private record(change: Change): void {
    if (this.pending) this.pending.push(change);
    else this.flush([change]);
  }

  private flush(changes: Change[]): void {
    if (!this.db || changes.length === 0) return;
    const upsert = this.db.prepare("INSERT INTO records (kind, key, value) VALUES (?, ?, ?) ON CONFLICT (kind, key) DO UPDATE SET value = excluded.value");
    const remove = this.db.prepare("DELETE FROM records WHERE kind = ? AND key = ?");
    this.db.exec("BEGIN IMMEDIATE");
    try {
      for (const c of changes) {
        if (c.value === undefined) remove.run(c.kind, c.key);
        else upsert.run(c.kind, c.key, JSON.stringify(c.value));
      }
      this.db.exec("COMMIT");
    } catch (error) {
      this.db.exec("ROLLBACK");
      throw error;
    }
  }
}
