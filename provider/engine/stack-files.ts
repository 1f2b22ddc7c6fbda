// Where a stack's files are and how its secrets open: cheap to import, for commands that only read or write them.
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";

/** A program's project or stack files are missing or wrong. */
export class ProjectError extends Error {
  override name = "ProjectError";
}

/** The stack a command works on when none is named. */
export const DEFAULT_STACK = "dev";

/** The state's directory under a program's, where `--state-dir` does not move it. */
const defaultStateDir = (projectDir: string) => join(projectDir, ".audience", "state");

/** Where a stack's state file lives: `<stateDir>/<stack>.json`, by default under `<program>/.audience/state`. */
export function stackStatePath(projectDir: string, stack: string, stateDir?: string): string {
  return join(resolve(stateDir ?? defaultStateDir(projectDir)), `${stack}.json`);
}

/** The stacks whose state is kept in `stateDir` (none when it does not exist yet). */
export function stacksWithState(stateDir: string): string[] {
  return existsSync(stateDir) ? readdirSync(stateDir).flatMap((file) => /^(.+)\.json$/.exec(file)?.[1] ?? []) : [];
}

/** A stack as a command line names it: the program's directory, the stack, and the state's directory if moved. */
export interface StackPlace {
  cwd: string;
  stack: string;
  stateDir?: string;
}

/** The place of a stack as `--cwd`, `--stack` and `--state-dir` (if given) name it. */
export function stackPlace(cwd: string, stack: string, stateDir: string | undefined): StackPlace {
  return stateDir === undefined ? { cwd, stack } : { cwd, stack, stateDir };
}

/** A word as a shell takes it: as it is when it can be, else quoted. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** A path as the command line takes it from the current directory: relative below it, else absolute. */
function pathWord(path: string): string {
  const rel = relative(process.cwd(), resolve(path));
  return shellWord(rel === "" ? "." : rel.startsWith("..") || isAbsolute(rel) ? resolve(path) : rel);
}

/**
 * `audience <words>` for the stack at `place`, as it runs from the current directory: --cwd where the program is
 * elsewhere, --stack and --state-dir where they are not the defaults. Every command a message tells a user to run
 * names the stack this way, so that it runs as printed.
 */
export function stackCommand(words: string, place: StackPlace): string {
  const args = [`audience ${words}`];
  if (resolve(place.cwd) !== process.cwd()) args.push(`--cwd ${pathWord(place.cwd)}`);
  if (place.stack !== DEFAULT_STACK) args.push(`--stack ${place.stack}`);
  if (place.stateDir !== undefined && resolve(place.stateDir) !== resolve(defaultStateDir(place.cwd))) args.push(`--state-dir ${pathWord(place.stateDir)}`);
  return args.join(" ");
}

/** `stackCommand` for the stack of a state file: at `place` where the command line named it, else where its path
 * says: under the program whose directory the default layout puts it in, else the current one. */
export function stackCommandFor(statePath: string, words: string, place?: StackPlace): string {
  if (place) return stackCommand(words, place);
  const stateDir = dirname(resolve(statePath));
  const stack = basename(statePath, ".json");
  const programDir = dirname(dirname(stateDir));
  if (stateDir === resolve(defaultStateDir(programDir))) return stackCommand(words, { cwd: programDir, stack });
  return stackCommand(words, { cwd: process.cwd(), stack, stateDir });
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
