// Where a stack's files are and how its secrets open: cheap to import, for commands that only read or write them.
import { closeSync, openSync, readFileSync, readSync } from "node:fs";
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

/**
 * The salt state of the stack config's `encryptionsalt` when the config holds a secure value, which the run will
 * open; as far as a glance finds it. A hint for starting the key's derivation early: a state's secrets are found
 * when the run reads it, and a stack without secrets derives no key.
 */
export function stackConfigSaltState(projectDir: string, stack: string): string | undefined {
  const text = readHead(join(resolve(projectDir), `Pulumi.${stack}.yaml`), 1 << 16);
  if (!/\bsecure:/.test(text)) return undefined;
  return /^encryptionsalt:[ \t]*["']?([^"'\s]+)/m.exec(text)?.[1];
}

/** A file's first `bytes` bytes, as text; "" when it cannot be read. */
function readHead(path: string, bytes: number): string {
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    const buffer = Buffer.alloc(bytes);
    return buffer.toString("utf8", 0, readSync(fd, buffer, 0, bytes, 0));
  } catch {
    return "";
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
