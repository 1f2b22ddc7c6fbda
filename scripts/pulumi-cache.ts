// The cache folder of `npm run pulumi:install`: one build per set of pins (about 370 MB each), marked when used. A new
// build removes the others but the one used last, so that changing pins does not fill the disk.
import { readdirSync, rmSync, statSync, utimesSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/** The file a whole build holds: written last, its modification time the build's last use. */
export const STAMP = ".built";
/** Builds kept besides the new one: the one used most recently (a checkout of the pins before, say). */
const KEEP_OTHERS = 1;

/** The folder under `root` of the build of Pulumi `version` (`v3.274.1`) whose inputs hash to `hash`. */
export function buildFolder(root: string, version: string, hash: string): string {
  return join(root, `pulumi-${version}-${hash.slice(0, 12)}`);
}
/** Where process `pid` makes `folder`'s build before renaming it into place. */
export function stagingFolder(folder: string, pid: number): string {
  return `${folder}.${pid}.tmp`;
}
/** The names those two give. */
const BUILD = /^pulumi-v.+-[0-9a-f]{12}$/;
const STAGING = /^pulumi-v.+-[0-9a-f]{12}\.(\d+)\.tmp$/;

/** Records that `folder`'s build was used now; in a cache this user may only read, it goes unrecorded. */
export function markUsed(folder: string): void {
  const now = new Date();
  try {
    utimesSync(join(folder, STAMP), now, now);
  } catch {
    // read-only: nothing here prunes it either
  }
}

function lastUsed(folder: string): number | undefined {
  try {
    return statSync(join(folder, STAMP)).mtimeMs;
  } catch {
    return undefined; // no stamp: not a whole build
  }
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Removes the builds beside `current` but the `KEEP_OTHERS` used most recently, and the staging folders of installs
 * that no longer run. Folders it does not recognise are left alone. Returns the names removed.
 */
export function pruneBuilds(current: string): string[] {
  const root = dirname(current);
  const others: { name: string; used: number }[] = [];
  const removed: string[] = [];
  for (const name of readdirSync(root)) {
    const staging = STAGING.exec(name);
    if (staging) {
      if (!running(Number(staging[1]))) removed.push(name);
      continue;
    }
    if (!BUILD.test(name) || name === basename(current)) continue;
    const used = lastUsed(join(root, name));
    if (used !== undefined) others.push({ name, used });
  }
  others.sort((a, b) => b.used - a.used);
  removed.push(...others.slice(KEEP_OTHERS).map((o) => o.name));
  for (const name of removed) rmSync(join(root, name), { recursive: true, force: true });
  return removed;
}
