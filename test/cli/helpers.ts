// The `audience` command as a user meets it: a child process from the sources, its output and exit status.
import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const ROOT = join(import.meta.dirname, "..", "..");

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `audience ...args` off a terminal; `input` is written to its stdin. Bounded: a hung command is killed after
 * `timeoutMs` (a minute by default). `built`: the command as installed (bin/audience.js running the built files of
 * dist/, which must be there), without the `source` condition.
 */
export function audience(args: string[], { env = {}, input, cwd, timeoutMs = 60_000, built = false }: { env?: NodeJS.ProcessEnv; input?: string; cwd?: string; timeoutMs?: number; built?: boolean } = {}): Promise<CliResult> {
  const command = built ? [join(ROOT, "bin", "audience.js")] : ["--conditions=source", join(ROOT, "provider", "cli", "main.ts")];
  const { NODE_OPTIONS, ...inherited } = process.env;
  const child = spawn(process.execPath, [...command, ...args], {
    env: { ...inherited, ...(built || NODE_OPTIONS === undefined ? {} : { NODE_OPTIONS }), PULUMI_CONFIG_PASSPHRASE_FILE: "", ...env },
    stdio: ["pipe", "pipe", "pipe"],
    timeout: timeoutMs,
    ...(cwd ? { cwd } : {}),
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  child.stdin.end(input ?? "");
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** A copy of a test program in a fresh directory, its packages linked to this checkout's. */
export function copyProgram(from: string, prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cpSync(from, dir, { recursive: true });
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
  return dir;
}
