// The stack's lock file: one run at a time changes a stack's state. Advisory: the state's own reading checks for
// another run too (see snapshot.ts), since a lock file can be removed by hand.
import { randomBytes } from "node:crypto";
import { link, mkdir, readFile, rm, stat, unlink } from "node:fs/promises";
import { hostname } from "node:os";
import { dirname } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { STATE_DIR_MODE, tempPath, writeAtomically } from "./atomic-files.ts";
import { StateError } from "./state-file.ts";

/** Another run is changing the stack: refused before anything was sent. */
export class StackBusyError extends StateError {
  override name = "StackBusyError";
  /** As a failed run's `errorCode` says it, for scripts. */
  readonly code = "stack-busy";
}

/** Who holds a stack's lock: written whole into a temporary file before that file becomes the lock. */
interface LockOwner {
  pid: number;
  host: string;
  /** Tells this taking of the lock from any other by the same process. */
  nonce: string;
  /** When the run took the lock (ms since the epoch). */
  since?: number;
}

/**
 * Releases the lock. `interruptedSince`: the lock was taken over from a run that died holding it, which began then:
 * what it made may be missing from the state if its journal was lost.
 */
export type StackLock = (() => Promise<void>) & { interruptedSince?: number };

/**
 * Takes the stack's lock file so two runs never write one state; returns its release. The lock appears with its
 * owner already in it (a temporary file linked into place), so no run ever reads an empty lock. A lock is taken over
 * only when its owner is provably gone: a process of this host that no longer runs.
 */
export async function lockStack(statePath: string): Promise<StackLock> {
  const lock = `${statePath}.lock`;
  await mkdir(dirname(lock), { recursive: true, mode: STATE_DIR_MODE });
  const owner: LockOwner = { pid: process.pid, host: hostname(), nonce: randomBytes(8).toString("hex"), since: Date.now() };
  const mine = JSON.stringify(owner);
  const tmp = tempPath(lock);
  await writeAtomically(tmp, mine);
  let interruptedSince: number | undefined;
  try {
    for (let attempt = 0; attempt < 50; attempt++) {
      try {
        await link(tmp, lock);
        const release = async () => {
          // Released only while it is still this run's: a lock taken over by another run stays.
          if ((await readFile(lock, "utf8").catch(() => "")) === mine) await rm(lock, { force: true });
        };
        return interruptedSince === undefined ? release : Object.assign(release, { interruptedSince });
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      }
      const text = await readFile(lock, "utf8").catch((e: NodeJS.ErrnoException) => (e.code === "ENOENT" ? undefined : Promise.reject(e)));
      if (text === undefined) continue; // released meanwhile
      const held = lockOwner(text);
      const gone = held !== undefined && held.host === hostname() && !isAlive(held.pid);
      if (held === undefined || !gone) {
        const who = held ? `process ${held.pid} on ${held.host}` : "an unknown process (the lock names no owner)";
        throw new StackBusyError(`the stack is being changed by ${who} (lock ${lock}); wait for it, or remove the lock if that process is gone`);
      }
      const since = held.since ?? (await stat(lock).then((s) => s.mtimeMs, () => Date.now()));
      if (await takeOver(lock, text, tmp)) interruptedSince = Math.min(interruptedSince ?? since, since);
      else await sleep(20);
    }
    throw new StackBusyError(`cannot take the stack lock ${lock}: other runs keep taking it`);
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

/** Whether a process of this host runs; a pid below 1 names none (process.kill would signal a group). */
export function isAlive(pid: number): boolean {
  if (!(pid > 0)) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
