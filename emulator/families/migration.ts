// Migrations link two related accounts: only such accounts, one live migration per pair, the first approval
// kept, nothing changed once finished or rolled back; both accounts may read it; its target pairs' push
// readiness is evaluated as it is read (blocked whenever the v2 target is archived).
import { conflict, fieldError } from "../errors.ts";
import type { Doc, ServiceState } from "../state.ts";
import type { ContextRule, EmulatorFamily } from "../family.ts";

/** How two accounts of a migration are related: `v2_parent_of_v1`, `v1_parent_of_v2`, `siblings` or `unrelated`. */
function relationship(state: ServiceState, v1: string, v2: string): string {
  const a = state.account(v1);
  const b = state.account(v2);
  if (!a || !b) return "unrelated";
  if (a.parent_id === b.id) return "v2_parent_of_v1";
  if (b.parent_id === a.id) return "v1_parent_of_v2";
  if (a.parent_id !== null && a.parent_id === b.parent_id) return "siblings";
  return "unrelated";
}

const migrationAccounts: ContextRule = ({ state, accountId, doc, previous }) => {
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

/** Target pairs with their push readiness, as evaluated now. */
function withPushReadiness(state: ServiceState, doc: Doc): Doc {
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

export const migration: EmulatorFamily = {
  collection: "migrations",
  rules: [migrationAccounts],
  onCreate: (state, _accountId, doc) => ({
    account_tree_relationship: relationship(state, String(doc.v1_account_id), String(doc.v2_account_id)), finished_at: null, rolled_back_at: null,
  }),
  onChange(stored, merged) {
    if (stored.finished_at != null || stored.rolled_back_at != null) {
      throw conflict(`The migration ${String(stored.id)} has ${stored.finished_at != null ? "finished" : "been rolled back"} and cannot change`);
    }
    return stored.approved_at != null ? { ...merged, approved_at: stored.approved_at } : merged;
  },
  sharedWith: (doc, accountId) => doc.v1_account_id === accountId || doc.v2_account_id === accountId,
  present: (ctx, _request, doc) => withPushReadiness(ctx.state, doc),
};
