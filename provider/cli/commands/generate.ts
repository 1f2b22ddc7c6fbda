// `audience generate`: options here; the generator (provider/cli/generate.ts) loads only when the command runs.
import type { Command } from "commander";
import type { GenerateFlags } from "../generate.ts";

export function define(program: Command): void {
  program
    .command("generate")
    .description("Write a Pulumi program that adopts the account's existing resources (from AUDIENCE_API_KEY / AUDIENCE_BASE_URL)")
    .option("--out <dir>", "write <dir>/index.ts and <dir>/Pulumi.yaml instead of printing the program")
    .option("--name <project>", "project name for Pulumi.yaml", "audience-account")
    .option("--only <collections>", "comma-separated collections to include (e.g. cohorts,scopes,targets)")
    .action(async (flags: GenerateFlags) => (await import("../generate.ts")).runGenerateCommand(flags));
}
