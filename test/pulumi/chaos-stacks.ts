// Stacks of the chaos program (test/engine/chaos-world.ts) through the real `pulumi` CLI, and what they record: for
// the interrupt and fault scenarios.
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RunningEmulator } from "pulumi-audience/emulator";
import { BUILT_AUDIENCE } from "../cli/helpers.ts";
import { CHAOS_PROGRAM, recordedIds } from "../engine/chaos-world.ts";
import { PLUGIN_IN_PACKAGE, programFolder, pulumiStack, type PulumiStack, type Run } from "./cli.ts";

export type Face = "dynamic" | "native";

/** The chaos program in `face`: native resources are served by the installed package's plugin, named in Pulumi.yaml. */
function chaosProgram(face: Face): string {
  if (face === "dynamic") return CHAOS_PROGRAM;
  const read = (name: string) => readFileSync(join(CHAOS_PROGRAM, name), "utf8");
  return programFolder({
    "Pulumi.yaml": `${read("Pulumi.yaml")}${PLUGIN_IN_PACKAGE}`,
    "index.ts": read("index.ts").replace(/from "pulumi-audience"/, 'from "pulumi-audience/native"'),
  });
}

/** A stack of the chaos program with `groups` groups, configured as a user does, in its own backend. */
export async function chaosStack(emulator: RunningEmulator, options: { apiKey: string; groups: number; password: string; stack?: string; face?: Face; env?: Record<string, string> }): Promise<PulumiStack> {
  const stack = await pulumiStack({ program: chaosProgram(options.face ?? "dynamic"), ...(options.stack ? { stack: options.stack } : {}), env: { AUDIENCE_BASE_URL: `${emulator.url}/v1`, ...options.env } });
  await stack.config({ "audience:apiKey": options.apiKey, warehousePassword: options.password }, true);
  await stack.config({ groups: String(options.groups) });
  return stack;
}

/** The ids of the audience resources a stack records, and how many operations it holds pending. */
export async function recorded(stack: PulumiStack): Promise<{ ids: string[]; pending: number }> {
  const { deployment } = await stack.exported();
  return { ids: recordedIds(deployment.resources ?? []), pending: deployment.pending_operations?.length ?? 0 };
}

export interface PendingStep {
  /** What `audience pending` printed, and its exit status. */
  printed: string;
  code: number | null;
  /** The command it printed for the user to run, if any, and how that run went. */
  command?: string;
  resolved?: Run;
}

/**
 * The README's step after an interrupted `up`: `pulumi stack export | audience pending --file - --since <start>` in
 * the program's folder, then the command it prints, run by a shell exactly as printed.
 */
export async function resolvePending(stack: PulumiStack, since: Date): Promise<PendingStep> {
  const exported = await stack.must(["stack", "export"]);
  const file = join(stack.dir, "exported.json");
  writeFileSync(file, exported.stdout);
  const pending = await shell(stack, `node ${BUILT_AUDIENCE} pending --stack ${stack.stack} --file - --since ${since.toISOString()} < ${file}`);
  const command = /Resolve them with:\n\s+(.+)\n/.exec(pending.stdout)?.[1];
  if (!command) return { printed: pending.output, code: pending.code };
  return { printed: pending.output, code: pending.code, command, resolved: await shell(stack, command) };
}

/** Runs `line` with bash in the program's folder, with the stack's environment (its PATH finds `pulumi`). */
function shell(stack: PulumiStack, line: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", line], { cwd: stack.dir, env: stack.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => ((stdout += d), (output += d)));
    child.stderr.setEncoding("utf8").on("data", (d: string) => ((stderr += d), (output += d)));
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr, output }));
  });
}
