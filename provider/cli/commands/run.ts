// `audience run preview|up|refresh|destroy`: options here; the engine (provider/cli/run.ts) loads only when it runs.
import { Option, type Command } from "commander";
import type { Operation } from "../../engine/index.ts";
import type { RunFlags } from "../run.ts";

const OPERATIONS: Operation[] = ["preview", "up", "refresh", "destroy"];

function keyValues(flag: string) {
  return (arg: string, previous: Record<string, string> = {}) => {
    const eq = arg.indexOf("=");
    if (eq <= 0) throw new Error(`${flag} "${flag === "--secret" ? arg.replace(/=.*/s, "=…") : arg}": expected key=value`);
    return { ...previous, [arg.slice(0, eq)]: arg.slice(eq + 1) };
  };
}

export function define(program: Command): void {
  program
    .command("run")
    .description("run a Pulumi program as `pulumi <operation>` does, through the local engine (no Pulumi CLI needed)")
    .addArgument(program.createArgument("<operation>", "what to do").choices(OPERATIONS))
    .option("--cwd <dir>", "the program's directory (holds Pulumi.yaml)", process.cwd())
    .option("-s, --stack <name>", "stack name", "dev")
    .option("-c, --config <key=value>", "config value (repeatable)", keyValues("--config"))
    .option("--secret <key=value>", "secret config value (repeatable)", keyValues("--secret"))
    .option("--state-dir <dir>", "where <stack>.json is kept (default <cwd>/.audience/state)")
    .addOption(new Option("--parallel <n>", "resource operations at once").default("8"))
    .option("-y, --yes", "proceed without asking")
    .option("--json", "print the result as one JSON document")
    .addHelpText("after", "\nSecrets in the state are encrypted with PULUMI_CONFIG_PASSPHRASE, as Pulumi's passphrase provider does.")
    .action(async (operation: Operation, flags: RunFlags) => (await import("../run.ts")).runCommand(operation, flags));
}
