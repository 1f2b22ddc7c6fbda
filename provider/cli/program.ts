// Runs a program through the engine with this package's extension: what `audience run`, the demo and the tests use.
import { runProgram as runEngine, type RunOptions, type RunResult } from "../engine/index.ts";
import { audienceExtension } from "./extension.ts";

/** Runs the program; CLI-faithful when `faithful` says so, else when AUDIENCE_FAITHFUL=1 is in the environment. */
export function runProgram(options: Omit<RunOptions, "extension">): Promise<RunResult> {
  const faithful = options.faithful ?? /^(1|true)$/i.test({ ...process.env, ...options.env }["AUDIENCE_FAITHFUL"] ?? "");
  return runEngine({ ...options, faithful, extension: audienceExtension({ faithful }) });
}
