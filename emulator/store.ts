// Durable record store: every record is a JSON value under (kind, key). Reads come from memory; a write is
// collected in a transaction and, with a data directory, committed to SQLite in one atomic, fsynced
// transaction before the request is answered. The directory and its files are the owner's alone.
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { copyJson } from "./json.ts";

/**
 * What a record is; records of different kinds may share a key. `secret` is no longer written (the webhook
 * signing key lives in memory): older data directories have one, removed when they are opened.
 */
export type RecordKind = "account" | "key" | "resource" | "outbox" | "usage" | "setting" | "upload" | "secret";

const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

type Change = { kind: RecordKind; key: string; value: unknown; previous: unknown };

/** Told of every change to a kind's records (rolled back ones too): the stored value, or undefined once deleted. */
export type Watcher = (key: string, value: unknown, previous: unknown) => void;

export class RecordStore {
  private readonly data = new Map<RecordKind, Map<string, unknown>>();
  private pending: Change[] | undefined;
  private readonly db: DatabaseSync | undefined;
  private readonly statements: { upsert: StatementSync; remove: StatementSync } | undefined;
  private readonly watchers = new Map<RecordKind, Watcher[]>();

  constructor(dataDir?: string) {
    if (dataDir === undefined) return;
    const created = mkdirSync(dataDir, { recursive: true, mode: DIR_MODE }) !== undefined;
    const file = join(dataDir, "emulator.sqlite");
    // A directory given to us that is not yet an emulator's (a project folder) keeps its mode.
    if (created || existsSync(file)) chmodSync(dataDir, DIR_MODE);
    // SQLite gives its -wal and -shm files the database file's mode, so the file exists with it before opening.
    closeSync(openSync(file, "a", FILE_MODE));
    for (const path of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(path)) chmodSync(path, FILE_MODE);
    // Loaded only when persistence is asked for: node:sqlite is built in, but still flagged experimental.
    const { DatabaseSync: Database } = createRequire(import.meta.url)("node:sqlite") as typeof import("node:sqlite");
    this.db = new Database(file);
    // secure_delete: a record overwritten or deleted leaves no old bytes in free pages.
    this.db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA secure_delete = ON;");
    this.db.exec("CREATE TABLE IF NOT EXISTS records (kind TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (kind, key))");
    this.statements = {
      upsert: this.db.prepare("INSERT INTO records (kind, key, value) VALUES (?, ?, ?) ON CONFLICT (kind, key) DO UPDATE SET value = excluded.value"),
      remove: this.db.prepare("DELETE FROM records WHERE kind = ? AND key = ?"),
    };
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
    const copy = copyJson(value);
    const previous = this.put(kind, key, copy);
    this.record({ kind, key, value: copy, previous });
  }

  delete(kind: RecordKind, key: string): void {
    const previous = this.put(kind, key, undefined);
    this.record({ kind, key, value: undefined, previous });
  }

  /** Calls `watcher` on every later change of `kind`'s records (indexes keep themselves current this way). */
  watch(kind: RecordKind, watcher: Watcher): void {
    this.watchers.set(kind, [...(this.watchers.get(kind) ?? []), watcher]);
  }

  /** Sets (or, with undefined, deletes) a record in memory and tells the watchers; answers the previous value. */
  private put(kind: RecordKind, key: string, value: unknown): unknown {
    const m = this.map(kind);
    const previous = m.get(key);
    if (value === undefined) m.delete(key);
    else m.set(key, value);
    for (const watcher of this.watchers.get(kind) ?? []) watcher(key, value, previous);
    return previous;
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
      for (const c of changes.reverse()) this.put(c.kind, c.key, c.previous);
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

  /** Rewrites the data files from the live records, so no older version of a record remains in them. */
  compact(): void {
    if (!this.db) return;
    this.db.exec("PRAGMA wal_checkpoint(TRUNCATE); VACUUM; PRAGMA wal_checkpoint(TRUNCATE);");
  }

  close(): void {
    this.db?.close();
  }

  private record(change: Change): void {
    if (this.pending) {
      this.pending.push(change);
      return;
    }
    try {
      this.flush([change]);
    } catch (error) {
      this.put(change.kind, change.key, change.previous);
      throw error;
    }
  }

  private flush(changes: Change[]): void {
    if (!this.db || !this.statements || changes.length === 0) return;
    const { upsert, remove } = this.statements;
    // A record changed several times in the transaction is written once, as it ends.
    const last = new Map<string, Change>();
    for (const c of changes) last.set(`${c.kind}\u0000${c.key}`, c);
    this.db.exec("BEGIN IMMEDIATE");
    try {
      for (const c of last.values()) {
        if (c.value === undefined) remove.run(c.kind, c.key);
        else upsert.run(c.kind, c.key, JSON.stringify(c.value));
      }
      this.db.exec("COMMIT");
    } catch (error) {
      // SQLite rolls a transaction back by itself on some failures (a full disk at COMMIT): a ROLLBACK then would
      // throw over the real error.
      if (this.db.isTransaction) this.db.exec("ROLLBACK");
      throw new StorageError(error);
    }
  }
}

/** A write the data directory refused (a full disk, a read-only file): nothing of the request was kept. */
export class StorageError extends Error {
  /** SQLite's name of the failure (`SQLITE_FULL`), when it gave one. */
  readonly sqliteCode: string | undefined;

  constructor(cause: unknown) {
    const e = cause as { message?: string; errcode?: number; errstr?: string };
    const sqliteCode = e.errcode !== undefined ? SQLITE_CODES[e.errcode & 0xff] : undefined;
    super(`${sqliteCode ?? "write failed"}: ${e.errstr ?? e.message ?? String(cause)}`, { cause });
    this.name = "StorageError";
    this.sqliteCode = sqliteCode;
  }

  /** Whether the disk (or the database's allowed size) is full. */
  get full(): boolean {
    return this.sqliteCode === "SQLITE_FULL";
  }
}

/** SQLite's primary result codes of failed writes (the low byte of an extended code). */
const SQLITE_CODES: Record<number, string> = {
  5: "SQLITE_BUSY", 8: "SQLITE_READONLY", 10: "SQLITE_IOERR", 11: "SQLITE_CORRUPT", 13: "SQLITE_FULL", 14: "SQLITE_CANTOPEN",
};
