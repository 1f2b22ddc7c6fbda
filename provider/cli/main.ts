#!/usr/bin/env node
// `audience`: the project's command line. Each subcommand lives in its own module and registers itself here.
import { Command } from "commander";
import { register as drift } from "./drift/index.ts";
import { register as demo } from "./demo.ts";
import { register as emulator } from "./emulator.ts";
import { register as generate } from "./generate.ts";
import { register as run } from "./run.ts";

const program = new Command("audience")
  .description("Audience-prediction pipelines as code: emulator, local runs, drift, code generation and the demo")
  .showHelpAfterError();

const commands: ((program: Command) => void)[] = [emulator, run, demo, drift, generate];
for (const register of commands) register(program);

await program.parseAsync(process.argv);
