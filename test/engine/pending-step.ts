// The documented step after an interrupted `up` under the Pulumi CLI: `audience pending`, run as a user runs it.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { BUILT_AUDIENCE, userEnv } from "../cli/helpers.ts";

export interface PendingRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `audience pending <args>` with the given environment added; resolves whatever its exit status. */
export async function audiencePending(args: string[], env: Record<string, string>): Promise<PendingRun> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BUILT_AUDIENCE, "pending", ...args], { env: userEnv(env) });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const error = e as { code?: number; stdout?: string; stderr?: string };
    return { code: error.code ?? 1, stdout: error.stdout ?? "", stderr: error.stderr ?? "" };
  }
}
