// The `audience` command as a user meets it: a child process of bin/audience.js, its output and exit status.
import { execFile, spawn } from "node:child_process";
import { cpSync, mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const ROOT = join(import.meta.dirname, "..", "..");

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `audience` as installed: bin/audience.js on the built dist/, which test/global-setup.ts keeps as new as its sources. */
export const BUILT_AUDIENCE = join(ROOT, "bin", "audience.js");

/**
 * This process's environment without its NODE_OPTIONS (the `source` condition this checkout's tests run with), plus
 * `env`: what a user's shell gives a command.
 */
export function userEnv(env: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const { NODE_OPTIONS: _ours, ...inherited } = process.env;
  return { ...inherited, ...env };
}

/**
 * Runs `audience ...args` off a terminal, as installed (BUILT_AUDIENCE, without the `source` condition: the sources
 * are what dist/ is built from, and a start from dist/ loads no TypeScript); `input` is written to its stdin. Bounded:
 * a hung command is killed after `timeoutMs` (a minute by default).
 */
export function audience(args: string[], { env = {}, input, cwd, timeoutMs = 60_000 }: { env?: NodeJS.ProcessEnv; input?: string; cwd?: string; timeoutMs?: number } = {}): Promise<CliResult> {
  const child = spawn(process.execPath, [BUILT_AUDIENCE, ...args], {
    env: userEnv({ PULUMI_CONFIG_PASSPHRASE_FILE: "", ...env }),
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

/**
 * Runs `audience ...args` on a terminal, as a person types it (util-linux `script` gives it one, stdin included): what
 * the terminal shows, and the exit status. Bounded as `audience` is.
 */
export function onTerminal(args: string[], { env = {}, timeoutMs = 60_000 }: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<{ code: number; shown: string }> {
  const command = [process.execPath, BUILT_AUDIENCE, ...args].map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(" ");
  return new Promise((resolve, reject) => {
    execFile("script", ["-qfec", command, "/dev/null"], { env: userEnv({ TERM: "xterm", ...env }), timeout: timeoutMs }, (error, shown) => {
      if (error && typeof error.code !== "number") reject(error);
      else resolve({ code: typeof error?.code === "number" ? error.code : 0, shown });
    });
  });
}

/** A copy of a test program in a fresh directory, its packages linked to this checkout's. */
export function copyProgram(from: string, prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cpSync(from, dir, { recursive: true });
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
  return dir;
}
