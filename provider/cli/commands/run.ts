// `audience run preview|up|refresh|destroy`: options here; the engine (provider/cli/run.ts) loads only when it runs.
import { InvalidArgumentError, Option, type Command } from "commander";
import type { Operation } from "../../engine/index.ts";
import { resolvePassphrase, stackConfigSaltState, stackStatePath } from "../../engine/stack-files.ts";
import type { RunFlags } from "../run.ts";
import { stackOptions } from "../stack-options.ts";
import { UsageError } from "../usage.ts";

const OPERATIONS: Operation[] = ["preview", "up", "refresh", "destroy"];

function keyValues(flag: "--config" | "--secret") {
  return (arg: string, previous: Record<string, string> = {}) => {
    const eq = arg.indexOf("=");
    // A malformed --secret may be the secret itself: it is never echoed.
    if (eq <= 0) throw new UsageError(`${flag}${flag === "--secret" ? "" : ` "${arg}"`}: expected key=value`);
    return { ...previous, [arg.slice(0, eq)]: arg.slice(eq + 1) };
  };
}

/** Starts deriving the key of the stack config's secrets (about a second, by design) while the engine loads. */
async function startStackKeys({ cwd, stack }: RunFlags): Promise<void> {
  const salt = stackConfigSaltState(cwd, stack);
  if (salt === undefined) return;
  let passphrase: string;
  try {
    passphrase = resolvePassphrase();
  } catch {
    return; // the run says what is missing
  }
  const { startDeriving } = await import("../../engine/secrets.ts");
  startDeriving(passphrase, salt);
}

/**
 * A refresh or a destroy of this package's resources serves them in process: their provider loads while the engine
 * loads, the keys derive and the state is read, not after. A failure to load surfaces where it did, at the first call.
 */
async function startInProcessProvider(operation: Operation, { cwd, stack, stateDir, faithful }: RunFlags): Promise<void> {
  if (operation !== "refresh" && operation !== "destroy") return;
  const { faithfulRun, loadInProcessModules, stateServedInProcess } = await import("../extension.ts");
  if (faithfulRun(faithful)) return;
  if (await stateServedInProcess(stackStatePath(cwd, stack, stateDir))) loadInProcessModules().catch(() => undefined);
}

function wholeNumber(arg: string): number {
  const n = Number(arg);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError("expected a whole number >= 1");
  return n;
}

export function define(program: Command): void {
  stackOptions(program.command("run"), { state: true })
    .description("run a Pulumi program as `pulumi <operation>` does, through the local engine (no Pulumi CLI needed)")
    .addArgument(program.createArgument("<operation>", "what to do").choices(OPERATIONS))
    .option("-c, --config <key=value>", "config value (repeatable)", keyValues("--config"))
    .option("--secret <key=value>", "secret config value (repeatable)", keyValues("--secret"))
    .addOption(new Option("--parallel <n>", "resource operations at once (default: PULUMI_PARALLEL, else 4 per CPU, as `pulumi up`)").argParser(wholeNumber))
    .option("-y, --yes", "proceed without asking")
    .option("--json", "print the result as one JSON document")
    .option("--diff", "show whole values in the plan, and every input of a create")
    .option("--debug", "keep the program's stack traces in its errors")
    .option("--faithful", "run as the Pulumi CLI runs: this package's installed provider in Pulumi's own hosts, no shortcut (also AUDIENCE_FAITHFUL=1)")
    .addHelpText("after", "\nConfig comes from Pulumi.yaml, then Pulumi.<stack>.yaml (see `audience config`), then -c/--secret.\nSecrets in the state are encrypted with PULUMI_CONFIG_PASSPHRASE, as Pulumi's passphrase provider does.")
    .action(async (operation: Operation, flags: RunFlags) => {
      await startStackKeys(flags);
      // Only a head start: without it the provider loads at its first call, as it would.
      startInProcessProvider(operation, flags).catch(() => undefined);
      return (await import("../run.ts")).runCommand(operation, flags);
    });
}
