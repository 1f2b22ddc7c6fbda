// Runs a program through the engine with this package's extension: what `audience run`, the demo and the tests use.
import { runProgram as runEngine, type RunOptions, type RunResult } from "../engine/index.ts";
import { audienceExtension, faithfulRun } from "./extension.ts";

/** Runs the program; CLI-faithful when `faithful` says so, else when AUDIENCE_FAITHFUL=1 is in the environment. */
export function runProgram(options: Omit<RunOptions, "extension">): Promise<RunResult> {
  const faithful = faithfulRun(options.faithful, { ...process.env, ...options.env });
  return runEngine({ ...options, faithful, extension: audienceExtension({ faithful }) });
}
