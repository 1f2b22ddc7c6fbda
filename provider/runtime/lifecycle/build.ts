// A write's finish: the optional wait for the build, then the family's own steps. A failure after the write went
// through keeps the resource in state (Pulumi records an error carrying `{id, properties, reasons}`).
import { status as buildStatus } from "pulumi-audience/sdk/contract";
import { DEFAULT_WAIT_TIMEOUT_SECONDS, PROVIDER_KEY, STEP_TIMEOUT_KEY } from "./controls.ts";
import type { Environment, StepLimits } from "./environment.ts";
import { FAILURE_CODES, failureCode } from "./failure.ts";
import { outputsOf } from "./outputs.ts";
import type { Parts } from "./parts.ts";
import type { Service } from "./service.ts";
import type { Props } from "./shape.ts";

/** A failed step whose resource exists: Pulumi records it in state with these reasons instead of losing it. */
class KeptResourceError extends Error {
  readonly id: string;
  readonly properties: Props;
  readonly reasons: string[];
  /** What kind of failure (see failure.ts). */
  readonly code: string | undefined;

  constructor(id: string, properties: Props, reason: string, code: string | undefined) {
    super(reason);
    this.id = id;
    this.properties = properties;
    this.reasons = [reason];
    this.code = code;
  }
}

async function waitForBuild(env: Environment, parts: Parts, service: Service, id: string, response: Props, inputs: Props, limits: StepLimits): Promise<Props> {
  const { providerFamily, controls, members } = parts;
  // Named: a host that logs without the resource (Pulumi's dynamic-provider host) shows it on the stack's line.
  const which = typeof members.name === "string" ? `${providerFamily.family.className} "${members.name}" (${id})` : `${providerFamily.family.className} ${id}`;
  if (controls.waitFor !== "ready" || !providerFamily.family.builds) return response;
  const own = controls.waitTimeoutSeconds ?? DEFAULT_WAIT_TIMEOUT_SECONDS;
  const marked = inputs[STEP_TIMEOUT_KEY];
  const given = limits.timeoutSeconds ?? (typeof marked === "number" ? marked : undefined);
  const engine = given !== undefined && given > 0 && given < own ? given : undefined;
  const seconds = engine ?? own;
  const deadline = Date.now() + seconds * 1000;
  let current = response;
  let delay = 250;
  let reported: unknown;
  for (;;) {
    // Awaited, so the status is shown before the step that waits for it ends.
    if (current.status !== reported) await env.progress?.(`${which}: ${String(current.status)}`);
    reported = current.status;
    if (current.status === "ready") return current;
    const keep = () => ({ ...outputsOf(parts, current, inputs), [PROVIDER_KEY]: inputs[PROVIDER_KEY] });
    if (current.status === "error") {
      const why = typeof current.status_error === "string" ? current.status_error : "no reason given";
      throw new KeptResourceError(id, keep(), `${providerFamily.family.className} ${id} failed to build: ${why}; it stays in the stack, and the next up builds it again (once what the reason names is fixed)`, FAILURE_CODES.buildFailed);
    }
    // The last look is at the deadline itself: a build done within the time given is not failed for the backoff.
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      throw new KeptResourceError(id, keep(), `${providerFamily.family.className} ${id} is still ${String(current.status)} after ${seconds}s (${engine !== undefined ? "customTimeouts" : "waitTimeoutSeconds"}); it stays in the stack, and the next up waits for its build again`, FAILURE_CODES.buildTimeout);
    }
    try {
      await env.sleep(Math.min(delay, remaining), limits.signal);
    } catch {
      throw new KeptResourceError(id, keep(), `${providerFamily.family.className} ${id}: the wait for its build was cancelled while ${String(current.status)}; it stays in the stack, and the next up waits for its build again`, FAILURE_CODES.cancelled);
    }
    delay = Math.min(delay * 2, 10_000);
    current = await service.get(providerFamily.family, id);
  }
}

/** The path a plan names when an update re-runs or awaits a build (not a member: the reason for the update). */
export const BUILD_PATH = "build";

/**
 * Why an update re-runs the build of a resource recorded as `recorded` (outputs, camelCase), or undefined: the program
 * waits for its build (`waitFor: "ready"`) and the last one failed. Pulumi updates a resource whose step failed again
 * with no change declared; without this the update would only read the failure again.
 */
export function failedBuild(parts: Parts, recorded: Props): string | undefined {
  const { providerFamily, controls } = parts;
  if (controls.waitFor !== "ready" || !providerFamily.family.builds || !providerFamily.family.forceUpdatable || recorded.status !== "error") return undefined;
  return typeof recorded.statusError === "string" ? recorded.statusError : "no reason given";
}

/** The statuses of a build not done yet: all but its ends. */
const BUILDING: readonly string[] = buildStatus.options.filter((s) => s !== "ready" && s !== "error");

/**
 * The recorded status of a build the program waits for that was not done when recorded (a wait that ran out of
 * time), or undefined: the update waits for it, as the create would have.
 */
export function unfinishedBuild(parts: Parts, recorded: Props): string | undefined {
  const { providerFamily, controls } = parts;
  if (controls.waitFor !== "ready" || !providerFamily.family.builds || typeof recorded.status !== "string") return undefined;
  return BUILDING.includes(recorded.status) ? recorded.status : undefined;
}

/** What a plan says of an update that waits for an unfinished build. */
export function awaitNote(parts: Parts, id: string, status: string): string {
  const name = typeof parts.members.name === "string" ? ` "${parts.members.name}"` : "";
  return `${parts.providerFamily.family.className}${name} (${id}): its build is recorded as ${status}, not ready; this update waits for it (${BUILD_PATH})`;
}

/** What a plan says of an update that re-runs a failed build. */
export function rerunNote(parts: Parts, id: string, why: string): string {
  const name = typeof parts.members.name === "string" ? ` "${parts.members.name}"` : "";
  return `${parts.providerFamily.family.className}${name} (${id}): its last build failed (${why}); this update runs it again (${BUILD_PATH})`;
}

/** The optional wait, then the family's own steps (which may need the built resource). */
export async function finish(env: Environment, parts: Parts, service: Service, id: string, response: Props, inputs: Props, limits: StepLimits): Promise<Props> {
  let current = response;
  try {
    current = await waitForBuild(env, parts, service, id, current, inputs, limits);
    if (!parts.providerFamily.afterWrite || Object.keys(parts.extras).length === 0) return current;
    return await parts.providerFamily.afterWrite(service, id, parts.extras, current);
  } catch (error) {
    if (error instanceof KeptResourceError) throw error;
    // The write went through: keep the resource in state, failing the step with the reason.
    const kept = { ...outputsOf({ ...parts, extras: {} }, current, inputs), [PROVIDER_KEY]: inputs[PROVIDER_KEY] };
    throw new KeptResourceError(id, kept, (error as Error).message, failureCode(error));
  }
}
