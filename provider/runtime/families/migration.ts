// Migrations: the service takes one migration per pair of accounts until it is rolled back, so preview looks for
// one already pairing the declared accounts (another stack's, or one made by hand), as the create would meet it.
import type { FamilyExtras } from "./family.ts";

export const migrations: FamilyExtras = {
  async accountCheck(calls, { wire }, recorded) {
    const pair = [wire.v1_account_id, wire.v2_account_id];
    if (recorded() !== undefined || !pair.every((id) => typeof id === "string")) return [];
    const key = [...pair].sort().join();
    const paired = (await calls.client.list("migrations")).find((m) =>
      m.rolled_back_at == null && [m.v1_account_id, m.v2_account_id].sort().join() === key);
    if (paired === undefined) return [];
    return [{
      path: "v2_account_id",
      message: `the accounts ${String(pair[0])} and ${String(pair[1])} are already paired by migration ${String(paired.id)}, and the service takes one migration per pair until it is rolled back: manage that one with adoptId: "${String(paired.id)}", or roll it back first`,
      context: { errorType: "conflict" },
    }];
  },
};
