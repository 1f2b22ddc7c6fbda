#!/usr/bin/env node
// `audience`: the project's command line. Each subcommand lives in its own module and registers itself here.
import { Command } from "commander";
import { register as drift } from "./drift.ts";
import { register as demo } from "./demo.ts";
import { register as emulator } from "./emulator.ts";
import { register as generate } from "./generate.ts";
import { register as run } from "./run.ts";

/** Exit status of a command line that could not be understood: commander has printed its one-line error. */
const USAGE_ERROR = 2;

const program = new Command("audience")
  .description("Audience-prediction pipelines as code: emulator, local runs, drift, code generation and the demo")
  .exitOverride((e) => process.exit(e.exitCode === 0 ? 0 : USAGE_ERROR));

const commands: ((program: Command) => void)[] = [emulator, run, demo, drift, generate];
for (const register of commands) register(program);

await program.parseAsync(process.argv);
