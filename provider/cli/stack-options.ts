// The options of every command that works on one stack of a program, named and defaulted once.
import type { Command } from "commander";
import { checkStackName, loadProject, type Project } from "../engine/project.ts";
import { DEFAULT_STACK, stackStatePath } from "../engine/stack-files.ts";

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

/** The program and stack the flags name, and where the stack's state file is. */
export function selectStack(flags: StackFlags): { project: Project; stack: string; statePath: string } {
  const project = loadProject(flags.cwd);
  const stack = checkStackName(flags.stack);
  return { project, stack, statePath: stackStatePath(project.dir, stack, flags.stateDir) };
}
