// How many resource operations a run has in flight without `--parallel`: on its own, so that what only needs the
// number (a baseline in bench/) does not load the engine.
import { availableParallelism } from "node:os";

/** As `pulumi up` without `--parallel`: PULUMI_PARALLEL when it is a whole number from 1, else four per CPU. */
export function defaultParallel(env: NodeJS.ProcessEnv = process.env): number {
  const set = Number(env["PULUMI_PARALLEL"]);
  return Number.isInteger(set) && set > 0 ? set : 4 * availableParallelism();
}
