// `audience run preview|up|refresh|destroy`: runs a Pulumi program through the local engine, without a Pulumi CLI.
import { constants as osConstants } from "node:os";
import { createInterface } from "node:readline/promises";
import type { Operation, RunOptions } from "../engine/index.ts";
import { runProgram } from "./program.ts";
import { createRenderer, resultJson } from "./render.ts";
import { shellWord, stackCommand } from "../engine/stack-files.ts";

async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return /^y(es)?$/i.test((await rl.question(`${question} [yes/no] `)).trim());
  } finally {
    rl.close();
  }
}

export interface RunFlags {
  cwd: string;
  stack: string;
  config?: Record<string, string>;
  secret?: Record<string, string>;
  stateDir?: string;
  parallel?: number;
  yes?: boolean;
  json?: boolean;
  diff?: boolean;
  debug?: boolean;
  faithful?: boolean;
}

/** `run preview` with the config this run was given, so that it plans what the run would do; secrets not written. */
function previewWords(flags: RunFlags): string {
  const given = Object.entries(flags.config ?? {}).map(([key, value]) => `-c ${shellWord(`${key}=${value}`)}`);
  const secret = Object.keys(flags.secret ?? {}).map((key) => `--secret ${shellWord(`${key}=<secret>`)}`);
  return ["run preview", ...given, ...secret].join(" ");
}

/** Runs the operation (after showing the plan and asking, unless --yes); exit code 1 when it fails. */
export async function runCommand(operation: Operation, flags: RunFlags): Promise<void> {
  const tty = Boolean(process.stdout.isTTY) && !flags.json;
  // The program's config hints name this CLI's command, for the stack this run uses.
  const configCommand = stackCommand("config set", { cwd: flags.cwd, stack: flags.stack });
  const renderer = createRenderer({ out: process.stdout, err: process.stderr, tty, configCommand, ...(flags.diff ? { diff: true } : {}), ...(flags.debug ? { debug: true } : {}) });
  const { parallel } = flags;
  // SIGINT or SIGTERM stops the run cleanly (steps in flight finish, state written, lock released); a second
  // one is not needed and is ignored while that happens.
  const stop = new AbortController();
  let stoppedBy: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (!stop.signal.aborted) process.stderr.write(`${signal}: stopping after the steps in flight\n`);
    stoppedBy ??= signal;
    stop.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  const base: RunOptions = {
    cwd: flags.cwd,
    operation,
    stack: flags.stack,
    ...(parallel !== undefined ? { parallel } : {}),
    ...(flags.config ? { config: flags.config } : {}),
    ...(flags.secret ? { secrets: flags.secret } : {}),
    ...(flags.stateDir ? { stateDir: flags.stateDir } : {}),
    ...(flags.faithful ? { faithful: true } : {}),
    ...(flags.json ? {} : { onEvent: renderer.event }),
    signal: stop.signal,
  };
  try {
    if (operation !== "preview" && !flags.yes) {
      if (!process.stdin.isTTY || flags.json) throw new Error(`--yes is required to ${operation} when not on a terminal (see the plan with \`${stackCommand(previewWords(flags), flags)}\`)`);
      if (operation === "up") {
        const plan = await runProgram({ ...base, operation: "preview" });
        renderer.summary(plan);
        if (!plan.ok) {
          process.exitCode = 1;
          return;
        }
      }
      if (!(await confirm(`Do you want to ${operation} stack ${flags.stack}?`))) {
        console.log("Cancelled; nothing was changed.");
        return;
      }
    }
    const result = await runProgram(base);
    if (flags.json) process.stdout.write(resultJson(result));
    else renderer.summary(result);
    // Stopped by a signal: the shell's status for it (128 + its number: 130 for SIGINT, 143 for SIGTERM).
    if (!result.ok) process.exitCode = stoppedBy ? 128 + osConstants.signals[stoppedBy] : 1;
  } catch (e) {
    process.stderr.write(`error: ${(e as Error).message}\n`);
    // A script reading --json gets a document either way: the run did not start, and why.
    if (flags.json) {
      const code = (e as { code?: unknown }).code;
      process.stdout.write(`${JSON.stringify({ operation, stack: flags.stack, ok: false, error: (e as Error).message, ...(typeof code === "string" ? { errorCode: code } : {}) }, null, 2)}\n`);
    }
    process.exitCode = 1;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}
