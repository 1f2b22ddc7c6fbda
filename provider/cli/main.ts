#!/usr/bin/env node
// `audience`: the project's command line. Each subcommand defines its options in commands/ and loads its module
// only when it runs, so `audience --help` starts fast.
import { Command } from "commander";
import { define as demo } from "./commands/demo.ts";
import { define as drift } from "./commands/drift.ts";
import { define as emulator } from "./commands/emulator.ts";
import { define as generate } from "./commands/generate.ts";
import { define as run } from "./commands/run.ts";

const program = new Command("audience")
  .description("Audience-prediction pipelines as code: emulator, local runs, drift, code generation and the demo")
  .showHelpAfterError();

const commands: ((program: Command) => void)[] = [emulator, run, demo, drift, generate];
for (const define of commands) define(program);

await program.parseAsync(process.argv);
