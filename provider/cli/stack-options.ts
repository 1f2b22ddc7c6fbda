// The options of every command that works on one stack of a program, named and defaulted once. Cheap to import:
// every command declares its options at start-up.
import type { Command } from "commander";
import { DEFAULT_STACK } from "../engine/stack-files.ts";

export interface StackFlags {
  cwd: string;
  stack: string;
  stateDir?: string;
}

/** Adds --cwd and --stack, and --state-dir for commands that read or write the stack's state. */
export function stackOptions(command: Command, { state }: { state: boolean }): Command {
  command.option("--cwd <dir>", "the program's directory (holds Pulumi.yaml)", process.cwd()).option("-s, --stack <name>", "stack name", DEFAULT_STACK);
  if (state) command.option("--state-dir <dir>", "where <stack>.json is kept (default <cwd>/.audience/state)");
  return command;
}
