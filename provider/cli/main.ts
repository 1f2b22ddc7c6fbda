#!/usr/bin/env node
// `audience`: the project's command line. Each subcommand defines its options in commands/ and loads its module
// only when it runs, so `audience --help` starts fast.
import { createRequire } from "node:module";
import { Command } from "commander";
import { define as config } from "./commands/config.ts";
import { define as demo } from "./commands/demo.ts";
import { define as drift } from "./commands/drift.ts";
import { define as emulator } from "./commands/emulator.ts";
import { define as generate } from "./commands/generate.ts";
import { define as newProgram } from "./commands/new.ts";
import { define as pending } from "./commands/pending.ts";
import { define as run } from "./commands/run.ts";
import { define as schema } from "./commands/schema.ts";
import { define as stack } from "./commands/stack.ts";
import { failure, oneLine } from "./usage.ts";

// Output piped into a reader that stops early (`| head`) ends the command quietly, as other CLIs do.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0);
  throw error;
});

const { version } = createRequire(import.meta.url)("pulumi-audience/package.json") as { version: string };

const program = new Command("audience")
  .description("Audience-prediction pipelines as code: emulator, local runs, stack config and state, drift, code generation, the package schema and the demo")
  .version(version, "-V, --version", "print the version")
  .configureOutput({ outputError: (message, write) => write(oneLine(message)) })
  .exitOverride();

const commands: ((program: Command) => void)[] = [newProgram, emulator, run, config, stack, pending, demo, drift, generate, schema];
for (const define of commands) define(program);

// `audience help <command>` is `audience <command> --help`: most commands declare their options with their code,
// loaded only when they run, so commander's own help would show a stand-in without them.
const asked = process.argv[2] === "help" ? process.argv[3] : undefined;
if (asked !== undefined && program.commands.some((c) => c.name() === asked)) process.argv.splice(2, 2, asked, "--help");

try {
  await program.parseAsync(process.argv);
} catch (error) {
  const { exitCode, text } = failure(error);
  process.stderr.write(text);
  process.exitCode = exitCode;
}
