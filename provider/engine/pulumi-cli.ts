// The same runs through the real Pulumi CLI, when one is installed: local file backend, passphrase secrets.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";
import type { Operation } from "./deployment.ts";
import { childNodeOptions } from "./language.ts";

const exec = promisify(execFile);

/** The `pulumi` executable on PATH, if any. */
export function pulumiOnPath(): string | undefined {
  for (const dir of (process.env["PATH"] ?? "").split(delimiter)) {
    const candidate = join(dir, process.platform === "win32" ? "pulumi.exe" : "pulumi");
    if (dir && existsSync(candidate)) return candidate;
  }
  return undefined;
}

export interface CliRunOptions {
  pulumi: string;
  /** A program directory the CLI may write Pulumi.<stack>.yaml into (a scratch copy). */
  cwd: string;
  operation: Operation;
  stack: string;
  passphrase: string;
  /** The local backend's directory (PULUMI_BACKEND_URL=file://...). */
  backendDir: string;
  config?: Record<string, string>;
  secrets?: Record<string, string>;
  env?: Record<string, string>;
}

export interface CliRunResult {
  ok: boolean;
  /** What the CLI printed, for people. */
  output: string;
  outputs: Record<string, unknown>;
}

export async function runWithPulumiCli(o: CliRunOptions): Promise<CliRunResult> {
  const env = {
    ...process.env,
    ...o.env,
    PULUMI_BACKEND_URL: `file://${o.backendDir}`,
    PULUMI_CONFIG_PASSPHRASE: o.passphrase,
    PULUMI_SKIP_UPDATE_CHECK: "true",
    NODE_OPTIONS: childNodeOptions(),
  };
  const pulumi = (...args: string[]) => exec(o.pulumi, [...args, "--non-interactive"], { cwd: o.cwd, env, maxBuffer: 64 * 1024 * 1024 });
  await pulumi("stack", "select", "--create", "--stack", o.stack);
  for (const [key, value] of Object.entries(o.config ?? {})) await pulumi("config", "set", "--stack", o.stack, key, value);
  for (const [key, value] of Object.entries(o.secrets ?? {})) {
    // On stdin, which the CLI reads when not interactive: a command line shows in process lists and failure text.
    const setting = pulumi("config", "set", "--secret", "--stack", o.stack, key);
    setting.child.stdin?.end(value);
    await setting;
  }
  const command = o.operation === "preview" ? ["preview"] : o.operation === "up" ? ["up", "--yes", "--skip-preview"] : [o.operation, "--yes", "--skip-preview"];
  let output: string;
  let ok = true;
  try {
    const { stdout, stderr } = await pulumi(...command, "--stack", o.stack);
    output = stdout + stderr;
  } catch (e) {
    const failed = e as { stdout?: string; stderr?: string; message: string };
    output = (failed.stdout ?? "") + (failed.stderr ?? failed.message);
    ok = false;
  }
  const { stdout } = await pulumi("stack", "output", "--json", "--show-secrets", "--stack", o.stack);
  return { ok, output, outputs: JSON.parse(stdout || "{}") as Record<string, unknown> };
}
