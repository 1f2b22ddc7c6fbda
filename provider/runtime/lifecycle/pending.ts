// Creates an interrupted run left pending (Pulumi's `pending_operations` of type `creating`, or this engine's own
// records): for each, what the account holds that the create may have made. A resource is taken only when it is
// the one resource of the family with the declared name and configuration, created in the create's time window,
// that no state given records and no other pending create could also have made. Several: none is taken.
import { families, type FamilyDef } from "pulumi-audience/sdk/contract";
import { madeBy } from "./ambiguous.ts";
import { DYNAMIC_TYPE_PREFIX, PACKAGE } from "../markers.ts";
import { KIND_KEY } from "./controls.ts";
import { declaredCreate } from "./parts.ts";
import type { Service } from "./service.ts";
import type { Props } from "./shape.ts";

export interface PendingCreate {
  urn: string;
  /** The resource type: `pulumi-nodejs:dynamic/audience:Cohort` or `audience:index:Cohort`. */
  type: string;
  inputs: Props;
  /** When the create may have begun and ended at the latest (ms since the epoch). */
  since: number;
  until: number;
}

export type Resolution =
  /** It made this resource: record it in the state. */
  | { urn: string; action: "import"; id: string }
  /** It made nothing: drop the pending create; the next up creates the resource. */
  | { urn: string; action: "clear" }
  /** Several resources could be it: nothing is taken; the user chooses. */
  | { urn: string; action: "ambiguous"; candidates: string[] }
  /** Not a resource of this package, or one no list can find (an upload): left for the user to check. */
  | { urn: string; action: "unknown"; reason: string };

/** The family of a resource type of this package, dynamic or native; undefined for other types. */
export function familyOfType(type: string): FamilyDef | undefined {
  if (!type.startsWith(DYNAMIC_TYPE_PREFIX) && !type.startsWith(`${PACKAGE}:index:`)) return undefined;
  const className = type.slice(type.lastIndexOf(":") + 1);
  return Object.values(families as Record<string, FamilyDef>).find((f) => f.className === className);
}

/**
 * Finds what each pending create made. `service` connects to an account (the inputs' `account`, else the default
 * one); `recorded` holds the ids the states already manage, which are never taken.
 */
export async function resolvePendingCreates(creates: PendingCreate[], service: (account: string | undefined) => Service, recorded: ReadonlySet<string>): Promise<Resolution[]> {
  const lists = new Map<string, Promise<Props[]>>();
  const listed = (account: string | undefined, family: FamilyDef) => {
    const key = `${account ?? ""}\u0000${family.collection}`;
    let list = lists.get(key);
    if (!list) lists.set(key, (list = service(account).list(family)));
    return list;
  };
  const found = await Promise.all(creates.map(async (op) => {
    const family = familyOfType(op.type);
    if (!family) return { op, reason: `${op.type} is not a resource type of this package` };
    const { account, desired } = declaredCreate({ ...op.inputs, [KIND_KEY]: family.collection });
    if (!desired) return { op, reason: `a ${family.className} cannot be found by what it declared: check the account by hand` };
    const matches = (await listed(account, family)).filter(madeBy(family, desired, op)).map((m) => String(m.id)).filter((id) => !recorded.has(id));
    return { op, matches };
  }));
  // A resource two pending creates could have made belongs to neither for sure.
  const claims = new Map<string, number>();
  for (const f of found) for (const id of f.matches ?? []) claims.set(id, (claims.get(id) ?? 0) + 1);
  return found.map((f): Resolution => {
    const { urn } = f.op;
    if (!f.matches) return { urn, action: "unknown", reason: f.reason ?? "" };
    if (f.matches.length === 0) return { urn, action: "clear" };
    if (f.matches.length === 1 && claims.get(f.matches[0]!) === 1) return { urn, action: "import", id: f.matches[0]! };
    return { urn, action: "ambiguous", candidates: f.matches };
  });
}
