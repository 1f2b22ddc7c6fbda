// `audience run preview|up|refresh|destroy`: runs a Pulumi program through the local engine, without a Pulumi CLI.
import { createInterface } from "node:readline/promises";
import { Command, InvalidArgumentError, Option } from "commander";
import { runProgram, type Operation, type RunOptions } from "../engine/index.ts";
import { createRenderer, resultJson } from "../engine/render.ts";
import { stackOptions } from "./stack-options.ts";
import { UsageError } from "./usage.ts";

const OPERATIONS: Operation[] = ["preview", "up", "refresh", "destroy"];

function keyValues(flag: "--config" | "--secret") {
  return (arg: string, previous: Record<string, string> = {}) => {
    const eq = arg.indexOf("=");
    // A malformed --secret may be the secret itself: it is never echoed.
    if (eq <= 0) throw new UsageError(`${flag}${flag === "--secret" ? "" : ` "${arg}"`}: expected key=value`);
    return { ...previous, [arg.slice(0, eq)]: arg.slice(eq + 1) };
  };
}

function wholeNumber(arg: string): number {
  const n = Number(arg);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError("expected a whole number >= 1");
  return n;
}

async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return /^y(es)?$/i.test((await rl.question(`${question} [yes/no] `)).trim());
  } finally {
    rl.close();
  }
}

interface Flags {
  cwd: string;
  stack: string;
  config?: Record<string, string>;
  secret?: Record<string, string>;
  stateDir?: string;
  parallel: number;
  yes?: boolean;
  json?: boolean;
}

export function register(program: Command): void {
  stackOptions(program.command("run"), { state: true })
    .description("run a Pulumi program as `pulumi <operation>` does, through the local engine (no Pulumi CLI needed)")
    .addArgument(program.createArgument("<operation>", "what to do").choices(OPERATIONS))
    .option("-c, --config <key=value>", "config value (repeatable)", keyValues("--config"))
    .option("--secret <key=value>", "secret config value (repeatable)", keyValues("--secret"))
    .addOption(new Option("--parallel <n>", "resource operations at once").argParser(wholeNumber).default(8))
    .option("-y, --yes", "proceed without asking")
    .option("--json", "print the result as one JSON document")
    .addHelpText("after", "\nConfig comes from Pulumi.yaml, then Pulumi.<stack>.yaml (see `audience config`), then -c/--secret.\nSecrets in the state are encrypted with PULUMI_CONFIG_PASSPHRASE, as Pulumi's passphrase provider does.")
    .action(async (operation: Operation, flags: Flags) => {
      const tty = Boolean(process.stdout.isTTY) && !flags.json;
      const renderer = createRenderer({ out: process.stdout, err: process.stderr, tty });
      const { parallel } = flags;
      const base: RunOptions = {
        cwd: flags.cwd,
        operation,
        stack: flags.stack,
        parallel,
        ...(flags.config ? { config: flags.config } : {}),
        ...(flags.secret ? { secrets: flags.secret } : {}),
        ...(flags.stateDir ? { stateDir: flags.stateDir } : {}),
        ...(flags.json ? {} : { onEvent: renderer.event }),
      };
      try {
        if (operation !== "preview" && !flags.yes) {
          if (!process.stdin.isTTY || flags.json) throw new Error(`--yes is required to ${operation} when not on a terminal (see the plan with \`audience run preview\`)`);
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
        if (!result.ok) process.exitCode = 1;
      } catch (e) {
        process.stderr.write(`error: ${(e as Error).message}\n`);
        process.exitCode = 1;
      }
    });
}
