// The program and stack a command's flags name, for commands that work on one stack.
import { checkStackName, loadProject, type Project } from "../engine/project.ts";
import { stackPlace, stackStatePath, type StackPlace } from "../engine/stack-files.ts";
import type { StackFlags } from "./stack-options.ts";

/** The program and stack the flags name, where the stack's state file is, and the stack as the flags name it (for
 * the commands messages print). */
export function selectStack(flags: StackFlags): { project: Project; stack: string; statePath: string; place: StackPlace } {
  const project = loadProject(flags.cwd);
  const stack = checkStackName(flags.stack);
  return { project, stack, statePath: stackStatePath(project.dir, stack, flags.stateDir), place: stackPlace(flags.cwd, stack, flags.stateDir) };
}
