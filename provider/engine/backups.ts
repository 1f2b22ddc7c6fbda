// The last good copy of the state file, kept beside it as `<stack>.json.bak` (as Pulumi keeps one): each time the
// state file is written whole, the same text is written here, so the copy and the journal that goes on from it hold
// everything the stack recorded. Restoring puts the copy back in place of a damaged state file.
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile, rename } from "node:fs/promises";
import { hostname } from "node:os";
import { copyAtomically, writeAtomically } from "./atomic-files.ts";
import { journalPath, numbered, type RunClaim } from "./journal.ts";
import { stackCommandFor, type StackPlace } from "./stack-files.ts";
import { checkIntegrity, parseStateFile, StateError } from "./state-file.ts";
import { STACK_TYPE } from "./urn.ts";

/** Where the last good copy of the state file is kept (as Pulumi keeps `<stack>.json.bak`). */
export const backupPath = (statePath: string) => `${statePath}.bak`;

/** What a message about a damaged state tells the user to do: restore the copy, if there is one. `place` names the
 * stack as the command line that found it did, where known. */
export function restoreAdvice(statePath: string, place?: StackPlace): string {
  const command = (words: string) => stackCommandFor(statePath, words, place);
  const backup = backupPath(statePath);
  if (existsSync(backup)) return `\`${command("stack restore")}\` rebuilds it from its last good copy (${backup}) and its journal, and says what it cannot bring back`;
  return `no copy of it was kept (${backup}): import a \`pulumi stack export\` of the stack with \`${command("stack import")} --file <export>\`, or remove it to start over (the next up then creates every resource again; those already in the account stay there, unmanaged)`;
}

/** What a backup holds, as a user is told before it is restored. */
export interface BackupSummary {
  path: string;
  /** When it was written (the manifest's time), if it says. */
  written: string | undefined;
  /** The resources it holds, the stack and its providers left out. */
  resources: number;
  /** The last journal record it holds (see Integrity). */
  journal: number;
}

/** Reads the backup of the stack's state, checked whole; a StateError says why it cannot be restored. */
export async function readBackup(statePath: string): Promise<BackupSummary> {
  const path = backupPath(statePath);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") throw new StateError(`no copy of the stack's state at ${path}: each run that writes the state file keeps one`);
    throw e;
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new StateError(`${path}: not valid JSON (${(e as Error).message}); it cannot be restored`);
  }
  const parsed = parseStateFile(doc);
  if (!parsed.success) throw new StateError(`${path}: not a stack state of version 3; it cannot be restored`);
  const integrity = checkIntegrity(text, doc, path);
  const manifest = (parsed.data.deployment as { manifest?: { time?: unknown } }).manifest;
  const held = parsed.data.deployment.resources.filter((r) => r.type !== STACK_TYPE && !r.type.startsWith("pulumi:providers:"));
  return { path, written: typeof manifest?.time === "string" ? manifest.time : undefined, resources: held.length, journal: integrity?.journal ?? 0 };
}

/** Sets a file aside as `<name>.damaged-<time>`, not deleted; answers its new name (undefined when there is none). */
export async function setAside(path: string): Promise<string | undefined> {
  if (!existsSync(path)) return undefined;
  const aside = `${path}.damaged-${new Date().toISOString().replace(/[:.]/g, "-")}`;
  await rename(path, aside);
  return aside;
}

/** Puts the backup in place of the stack's state file, which is set aside; answers where it went, if there was one. */
export async function restoreBackup(statePath: string): Promise<string | undefined> {
  const aside = await setAside(statePath);
  await copyAtomically(backupPath(statePath), statePath);
  return aside;
}

/**
 * Starts the stack's journal with the claim of a run that is gone and began at `since`: the next run then looks in the
 * account for each resource it creates, in case it was made after the restored state was written.
 */
export async function markInterrupted(statePath: string, folded: number, since: number): Promise<void> {
  const claim: RunClaim = { pid: 0, host: hostname(), nonce: randomBytes(8).toString("hex"), since };
  await writeAtomically(journalPath(statePath), `${numbered(folded + 1, { run: claim })}\n`);
}
