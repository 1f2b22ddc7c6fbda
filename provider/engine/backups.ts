// The previous good state file, kept beside it as `<stack>.json.bak` (as Pulumi keeps one), and putting it back.
import { existsSync } from "node:fs";
import { readFile, rename } from "node:fs/promises";
import { basename } from "node:path";
import { copyAtomically } from "./atomic-files.ts";
import { journalPath } from "./journal.ts";
import { parseStateFile, StateError } from "./state-file.ts";

/** Where the previous good state file is kept (as Pulumi keeps `<stack>.json.bak`). */
export const backupPath = (statePath: string) => `${statePath}.bak`;

/** What a message about a damaged state tells the user to do: restore the backup, if there is one. */
export function restoreAdvice(statePath: string): string {
  const stack = basename(statePath, ".json");
  const backup = backupPath(statePath);
  if (existsSync(backup)) return `\`audience stack restore --stack ${stack}\` puts back the previous good state, kept in ${backup} (then run refresh: changes made since are not in it)`;
  return `no backup of it was kept (${backup}): remove it to start over, or import a \`pulumi stack export\` document with \`audience stack import --stack ${stack}\``;
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
