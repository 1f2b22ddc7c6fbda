// `audience drift`: options here; the work (provider/cli/drift.ts) loads only when the command runs.
import type { Command } from "commander";
import type { DriftFlags } from "../drift.ts";

export function define(program: Command): void {
  program
    .command("drift")
    .description("Report audience resources changed outside the program, from a `pulumi stack export --show-secrets` file")
    .argument("<state>", "the stack export (JSON), or - to read it from stdin")
    .option("--accounts <file>", "JSON map of account name -> {apiKey, baseUrl} for resources with an `account` input")
    .option("--json", "print the report as JSON")
    .action(async (file: string, flags: DriftFlags) => (await import("../drift.ts")).runDriftCommand(file, flags));
}
