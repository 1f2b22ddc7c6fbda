// The program and stack a command's flags name, for commands that work on one stack.
import { checkStackName, loadProject, type Project } from "../engine/project.ts";
import { stackStatePath } from "../engine/stack-files.ts";
import type { StackFlags } from "./stack-options.ts";

/** The program and stack the flags name, and where the stack's state file is. */
export function selectStack(flags: StackFlags): { project: Project; stack: string; statePath: string } {
  const project = loadProject(flags.cwd);
  const stack = checkStackName(flags.stack);
  return { project, stack, statePath: stackStatePath(project.dir, stack, flags.stateDir) };
}
