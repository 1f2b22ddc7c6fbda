// Account: a sub-account of the key's account; deletion starts a waiting period.
import { z } from "zod";
import { body, defineFamily, name, patchOf, responseOf, type MergePatchOf } from "./common.ts";

const shape = {
  name,
  /** Identity graph version the account matches people with (values not shown). */
  identity_graph: z.string().min(1).optional(),
  /** Branding of reports and the app (shape not shown, kept permissive). */
  branding: z.record(z.string(), z.unknown()).optional(),
};

export const accountCreate = body(shape);
export const accountPatch = patchOf(shape);
export const accountResponse = responseOf(shape, {
  /** The account's API key; always answered as `<secret>`. */
  api_key: z.string().nullish(),
  contract_started_at: z.string().nullish(),
  parent_account_id: z.string().nullish(),
});
export type AccountCreate = z.input<typeof accountCreate>;
export type AccountPatch = MergePatchOf<AccountCreate>;
export type AccountResponse = z.output<typeof accountResponse>;

export const account = defineFamily({
  name: "account",
  className: "Account",
  collection: "accounts",
  create: accountCreate,
  patch: accountPatch,
  response: accountResponse,
  secrets: ["api_key"],
  builds: false,
  archivable: false,
  deletion: "scheduled",
});
