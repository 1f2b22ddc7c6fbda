// Files replaced whole: written to a temporary file, synced, then renamed over the old one, so a crash leaves the
// old file or the new one, never half of either.
import { randomBytes } from "node:crypto";
import { copyFile, mkdir, open, rename } from "node:fs/promises";
import { dirname } from "node:path";

/** A temporary name beside `path`, unique to this process and call. */
export const tempPath = (path: string) => `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;

/** The stack's files hold its secrets (sealed) and ids: only their owner reads the folder. */
export const STATE_DIR_MODE = 0o700;

export async function writeAtomically(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: STATE_DIR_MODE });
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

export async function copyAtomically(from: string, to: string): Promise<void> {
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
