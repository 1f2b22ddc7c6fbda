// `audience run preview|up|refresh|destroy`: runs a Pulumi program through the local engine, without a Pulumi CLI.
import { createInterface } from "node:readline/promises";
import { Command, Option } from "commander";
import { runProgram, type Operation, type RunOptions } from "../engine/index.ts";
import { createRenderer, resultJson } from "../engine/render.ts";

const OPERATIONS: Operation[] = ["preview", "up", "refresh", "destroy"];

/**
 * Parses repeated `key=value` flags. A malformed one is a usage error printed here, not by commander, whose message
 * would repeat the argument: for `--secret` that may be the secret itself.
 */
function keyValues(command: Command, flag: string) {
  return (arg: string, previous: Record<string, string> = {}) => {
    const eq = arg.indexOf("=");
    if (eq <= 0) command.error(`error: ${flag} "${flag === "--secret" ? arg.replace(/=.*/s, "=…").replace(/^[^=]+$/s, "…") : arg}": expected key=value`);
    return { ...previous, [arg.slice(0, eq)]: arg.slice(eq + 1) };
  };
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
  parallel: string;
  yes?: boolean;
  json?: boolean;
  diff?: boolean;
  debug?: boolean;
}

export function register(program: Command): void {
  program
    .command("run")
    .description("run a Pulumi program as `pulumi <operation>` does, through the local engine (no Pulumi CLI needed)")
    .addArgument(program.createArgument("<operation>", "what to do").choices(OPERATIONS))
    .option("--cwd <dir>", "the program's directory (holds Pulumi.yaml)", process.cwd())
    .option("-s, --stack <name>", "stack name", "dev")
    .option("-c, --config <key=value>", "config value (repeatable)", keyValues(program, "--config"))
    .option("--secret <key=value>", "secret config value (repeatable)", keyValues(program, "--secret"))
    .option("--state-dir <dir>", "where <stack>.json is kept (default <cwd>/.audience/state)")
    .addOption(new Option("--parallel <n>", "resource operations at once").default("8"))
    .option("-y, --yes", "proceed without asking")
    .option("--json", "print the result as one JSON document")
    .option("--diff", "show whole values in the plan, and every input of a create")
    .option("--debug", "keep the program's stack traces in its errors")
    .addHelpText("after", "\nSecrets in the state are encrypted with PULUMI_CONFIG_PASSPHRASE, as Pulumi's passphrase provider does.")
    .action(async (operation: Operation, flags: Flags) => {
      const tty = Boolean(process.stdout.isTTY) && !flags.json;
      const renderer = createRenderer({ out: process.stdout, err: process.stderr, tty, ...(flags.diff ? { diff: true } : {}), ...(flags.debug ? { debug: true } : {}) });
      const parallel = Number(flags.parallel);
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
