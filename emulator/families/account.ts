// Accounts are not documents of an account: routes/accounts.ts serves them from the account records.
import { register } from "../routes/accounts.ts";
import type { EmulatorFamily } from "./family.ts";

export const account: EmulatorFamily = {
  ownRoutesOnly: true,
  routes: register,
  referenceError: (state, id) => (state.account(id) ? undefined : `names account ${id}, which does not exist`),
};
