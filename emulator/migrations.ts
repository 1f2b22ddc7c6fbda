// Migration rules: related accounts only, one live migration per pair, first approval kept, and target
// pairs' push readiness (blocked whenever the v2 target is archived).
import { conflict, fieldError } from "./errors.ts";
import type { ContextRule } from "./rules.ts";
import { relationship } from "./derived.ts";
import type { Doc, ServiceState } from "./state.ts";

export const migrationAccounts: ContextRule = ({ state, accountId, doc, previous }) => {
  const v1 = String(doc.v1_account_id);
  const v2 = String(doc.v2_account_id);
  if (!state.account(v1) || !state.account(v2)) return []; // named by the reference check
  if (previous) return [];
  if (accountId !== v1 && accountId !== v2 && !(state.isSelfOrDescendant(accountId, v1) && state.isSelfOrDescendant(accountId, v2))) {
    return [fieldError("v1_account_id", "the requesting account must be one of the two linked accounts or their parent", "forbidden_account")];
  }
  const related = relationship(state, v1, v2);
  if (related === "unrelated") {
    return [fieldError("v2_account_id", "must be related to the v1 account in the account hierarchy (sharing a parent, or one the parent of the other)", "unrelated_accounts")];
  }
  if (related === "v2_parent_of_v1" && state.accounts().some((a) => a.parent_id === v2 && a.id !== v1)) {
    return [fieldError("v2_account_id", "is the parent of the v1 account and holds other accounts: such an account cannot be a migration's v2 account", "parent_holds_accounts")];
  }
  const paired = state.store.values<{ collection: string; doc: Doc }>("resource", "migrations/").find((m) =>
    m.doc.rolled_back_at == null && [m.doc.v1_account_id, m.doc.v2_account_id].sort().join() === [v1, v2].sort().join());
  if (paired) throw conflict(`The accounts ${v1} and ${v2} are already paired by migration ${String(paired.doc.id)}`);
  return [];
};

/** A PATCH keeps the first approval time; a finished or rolled-back migration takes no changes. */
export function migrationPatch(stored: Doc, after: Doc): Doc {
  if (stored.finished_at != null || stored.rolled_back_at != null) {
    throw conflict(`The migration ${String(stored.id)} has ${stored.finished_at != null ? "finished" : "been rolled back"} and cannot change`);
  }
  return stored.approved_at != null ? { ...after, approved_at: stored.approved_at } : after;
}

/** Target pairs with their push readiness, as evaluated now. */
export function withPushReadiness(state: ServiceState, doc: Doc): Doc {
  if (!Array.isArray(doc.targets)) return doc;
  const targets = (doc.targets as Doc[]).map((pair) => {
    const v1 = state.resource("targets", String(pair.v1_id));
    const v2 = state.resource("targets", String(pair.v2_id));
    let status = "ready";
    if (v2?.doc.archived_at != null) status = "blocked";
    else if (pair.override !== true && pair.destination_mapping === undefined
      && (v1?.doc.options as Doc | undefined)?.type !== (v2?.doc.options as Doc | undefined)?.type) status = "needs_external_review";
    return { ...pair, push_readiness: { status } };
  });
  return { ...doc, targets };
}
