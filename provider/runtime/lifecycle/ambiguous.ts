// A create whose answer was lost (the connection broke after sending, or the service answered 5xx) may have made
// the resource. Before sending it again, one list request looks for what it made: same family, same name, same
// declared configuration, created since the attempt began. One match is the created resource; several are refused
// with their ids; none means the create had no effect and may be sent again. A look that fails leaves the outcome
// unknown: the create is not sent again, and the engine keeps it pending for the next run to look again.
import { AudienceApiError, ConnectionError } from "pulumi-audience/sdk/client";
import { jsonEqual, type FamilyDef } from "pulumi-audience/sdk/contract";
import type { Service } from "./service.ts";
import { FAILURE_CODES, withCode } from "./failure.ts";
import { canonical, keepSecrets, type Props } from "./shape.ts";

/**
 * Creates sent in all for one resource whose outcomes stay unknown before the step fails, and looks (list requests,
 * each with the client's own retries) before an outcome is given up as unknown: as many as the attempts the client
 * makes of one request (`audience:maxRetries` + 1). A look changes nothing, and under the Pulumi CLI a create that
 * fails is dropped from the state, so giving up early can leave what it made in the account and in no state.
 */
const attemptsOf = (service: Service) => service.client.retry.maxRetries + 1;
/** How far behind ours the service's clock may run when it stamps `created_at`. */
const CLOCK_SLACK_MS = 5_000;

/**
 * Words that begin the message of a write that failed with its outcome unknown, for the person who reads it; an
 * engine reads the failure's code (FAILURE_CODES.outcomeUnknown) and keeps the operation pending.
 */
export const OUTCOME_UNKNOWN = "outcome unknown:";

/**
 * What happens to a create whose outcome stays unknown, and what to do: the local engine keeps it pending, Pulumi's
 * engine forgets a failed create, so a person looks for it (drift lists it as made outside any program).
 */
const UNRESOLVED_CREATE = "`audience run` keeps the create pending and looks again before creating; `pulumi` records no failed create, "
  + "so before its next up, run `pulumi stack export --file stack.json && npx audience drift stack.json` in the program's folder: "
  + "a resource it lists as unmanaged with this name is the one made; adopt it (adoptId) or delete it";

/** Whether an error says the request may have taken effect (the SDK client's `outcomeUnknown`). */
export function outcomeUnknown(error: unknown): boolean {
  return error instanceof Error && (error as { outcomeUnknown?: unknown }).outcomeUnknown === true;
}

/**
 * Whether a request the client sends again (an update, a delete) may have taken effect though it failed: the service
 * answered 5xx to the last attempt, or the connection broke after sending it. A refusal (4xx, 429) took no effect.
 */
function mayHaveApplied(error: unknown): boolean {
  return outcomeUnknown(error) || (error instanceof AudienceApiError && error.status >= 500) || (error instanceof ConnectionError && !error.beforeSend);
}

/** Runs a write the client may have sent again; one that failed with its effect unknown says so (OUTCOME_UNKNOWN). */
export async function unlessUnknown<T>(what: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!mayHaveApplied(error)) throw error;
    // Sent again, an update or a delete that took effect changes nothing: the next run settles it.
    throw withCode(new Error(`${OUTCOME_UNKNOWN} ${what}: ${(error as Error).message}; the next run sends it again, which changes nothing if it took effect`, { cause: error }), FAILURE_CODES.outcomeUnknown);
  }
}

/** How a message names the resource: by its name, when its family has one. */
function label(family: FamilyDef, desired: Props): string {
  return typeof desired.name === "string" ? `${family.className} "${desired.name}"` : `${family.className} (no name)`;
}

/**
 * No resource is surely the one a lost create made: several were made since it began, or those that match were made
 * before it began by this machine's clock (another stack's or program's, or this one's if the service's clock runs
 * behind). None is taken: the user chooses.
 */
export class AmbiguousCreateError extends Error {
  override name = "AmbiguousCreateError";
  readonly candidates: string[];
  constructor(what: string, candidates: string[], cause: string, madeBefore: boolean) {
    super(madeBefore
      ? `${what}: the create's answer was lost (${cause}); ${candidates.join(", ")} ${candidates.length === 1 ? "matches" : "match"} its name and configuration but `
        + `${candidates.length === 1 ? "was" : "were"} made before it began (by this machine's clock): another stack's or program's, or this create's if the service's `
        + "clock runs behind. Nothing is recorded: set adoptId to the one that is this create's, or run again to create it if none is"
      : `${what}: the create's answer was lost (${cause}) and ${candidates.length} resources made since it began match it: ${candidates.join(", ")}. `
        + "Set adoptId to the one this program manages, then run again; the others may be another stack's or program's "
        + "(`audience drift` over the stacks' exports lists those no stack manages): delete only those");
    this.candidates = candidates;
  }
}

export interface Found {
  response: Props;
  /** What to tell the user: which resource was taken as the created one, and why. */
  diagnostic: string;
}

/**
 * Whether a listed resource is what a create of `desired` would have made: same name, same declared configuration,
 * created in the window (`since`, `until`: ms since the epoch, the service's clock allowed to lag ours).
 */
export function madeBy(family: FamilyDef, desired: Props, window: { since: number; until?: number }): (candidate: Props) => boolean {
  const want = canonical(family.create, desired);
  return (candidate) => {
    if (candidate.name !== desired.name) return false;
    const created = Date.parse(String(candidate.created_at ?? ""));
    if (!(created >= window.since - CLOCK_SLACK_MS) || created > (window.until ?? Infinity) + CLOCK_SLACK_MS) return false;
    // A secret comes back masked: the declared value stands in for it.
    return jsonEqual(keepSecrets(canonical(family.create, candidate), want), want);
  };
}

/**
 * Looks for what a create begun at `since` made; undefined when nothing matches. A failed look leaves the create's
 * outcome unknown: thrown as such, naming both the create's failure and the look's.
 */
async function findCreated(service: Service, family: FamilyDef, desired: Props, since: number, cause: string): Promise<Found | undefined> {
  let listed: Props[] | undefined;
  for (let look = 1; listed === undefined; look++) {
    try {
      listed = await service.list(family);
    } catch (error) {
      if (look < attemptsOf(service)) continue;
      throw withCode(new Error(`${OUTCOME_UNKNOWN} ${label(family, desired)}: the create's answer was lost (${cause}) and the look for what it made failed too `
      + `(${(error as Error).message}), so it may have been made. ${UNRESOLVED_CREATE}`, { cause: error }), FAILURE_CODES.outcomeUnknown);
    }
  }
  const matches = listed.filter(madeBy(family, desired, { since }));
  const what = label(family, desired);
  const ids = (found: Props[]) => found.map((m) => String(m.id));
  // One made since the create began is its own; one made just before (within the clock's slack) is only maybe: it
  // may be another stack's of the same name and configuration, which taking would share.
  const madeSince = matches.filter((m) => Date.parse(String(m.created_at)) >= since);
  if (madeSince.length > 1) throw new AmbiguousCreateError(what, ids(madeSince), cause, false);
  const [match] = madeSince;
  if (match === undefined) {
    if (matches.length > 0) throw new AmbiguousCreateError(what, ids(matches), cause, true);
    return undefined;
  }
  return {
    response: match,
    diagnostic: `${what}: the create's answer was lost (${cause}); ${String(match.id)}, made by it, is recorded as the created resource`,
  };
}

/**
 * What a create begun at `startedAt` (by a run that was interrupted) made, sending nothing: the resource, or undefined
 * when it made nothing. A failed look leaves its outcome unknown (thrown as such).
 */
export async function lookForCreated(service: Service, family: FamilyDef, desired: Props, report: (message: string) => void, startedAt: number): Promise<Props | undefined> {
  const found = await findCreated(service, family, desired, startedAt, "the run that sent it was interrupted");
  if (found) report(found.diagnostic);
  return found?.response;
}

/**
 * POSTs the resource; after a failure whose outcome is unknown, looks for what it made before sending it again.
 * `startedAt`: an earlier attempt (from an interrupted run) began then, so look before the first POST.
 */
export async function createOnce(service: Service, family: FamilyDef, desired: Props, report: (message: string) => void, startedAt?: number): Promise<Props> {
  const since = startedAt ?? Date.now();
  if (startedAt !== undefined) {
    const found = await findCreated(service, family, desired, since, "the run that sent it was interrupted");
    if (found) {
      report(found.diagnostic);
      return found.response;
    }
  }
  for (let attempt = 1; ; attempt++) {
    try {
      return await service.create(family, desired);
    } catch (error) {
      if (!outcomeUnknown(error)) throw error;
      const cause = (error as Error).message;
      const found = await findCreated(service, family, desired, since, cause);
      if (found) {
        report(found.diagnostic);
        return found.response;
      }
      // A request answered 5xx by a gateway may still land after the look: the outcome stays unknown.
      if (attempt >= attemptsOf(service)) throw withCode(new Error(`${OUTCOME_UNKNOWN} ${label(family, desired)}: ${attempt} creates failed (last: ${cause}); a look after each found nothing made yet, but one may still land. ${UNRESOLVED_CREATE}`, { cause: error }), FAILURE_CODES.outcomeUnknown);
    }
  }
}
