// Where a stack's files are and how its secrets open: cheap to import, for commands that only read or write them.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";

/** A program's project or stack files are missing or wrong. */
export class ProjectError extends Error {
  override name = "ProjectError";
}

/** The stack a command works on when none is named. */
export const DEFAULT_STACK = "dev";

/** Where a stack's state file lives: `<stateDir>/<stack>.json`, by default under `<program>/.audience/state`. */
export function stackStatePath(projectDir: string, stack: string, stateDir?: string): string {
  return join(resolve(stateDir ?? join(projectDir, ".audience", "state")), `${stack}.json`);
}

/** The passphrase of the stack's secrets: given, else PULUMI_CONFIG_PASSPHRASE, else PULUMI_CONFIG_PASSPHRASE_FILE. */
export function resolvePassphrase(explicit?: string): string {
  if (explicit !== undefined) return explicit;
  const env = process.env["PULUMI_CONFIG_PASSPHRASE"];
  if (env !== undefined) return env;
  const file = process.env["PULUMI_CONFIG_PASSPHRASE_FILE"];
  if (file) return readFileSync(file, "utf8").replace(/\r?\n$/, "");
  throw new ProjectError("set PULUMI_CONFIG_PASSPHRASE (or PULUMI_CONFIG_PASSPHRASE_FILE): the stack's secrets are encrypted with it");
}
