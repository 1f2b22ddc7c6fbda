#!/usr/bin/env node
// `audience`: the project's command line. Each subcommand lives in its own module and registers itself here.
import { createRequire } from "node:module";
import { Command } from "commander";
import { register as config } from "./config.ts";
import { register as drift } from "./drift.ts";
import { register as demo } from "./demo.ts";
import { register as emulator } from "./emulator.ts";
import { register as generate } from "./generate.ts";
import { register as newProgram } from "./new.ts";
import { register as run } from "./run.ts";
import { register as stack } from "./stack.ts";
import { failure, oneLine } from "./usage.ts";
import { register as schema } from "../plugin/command.ts";

const { version } = createRequire(import.meta.url)("pulumi-audience/package.json") as { version: string };

const program = new Command("audience")
  .description("Audience-prediction pipelines as code: emulator, local runs, stack config and state, drift, code generation, the package schema and the demo")
  .version(version, "-V, --version", "print the version")
  .configureOutput({ outputError: (message, write) => write(oneLine(message)) })
  .exitOverride();

const commands: ((program: Command) => void)[] = [newProgram, emulator, run, config, stack, demo, drift, generate, schema];
for (const register of commands) register(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  const { exitCode, text } = failure(error);
  process.stderr.write(text);
  process.exitCode = exitCode;
}
