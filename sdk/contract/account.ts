// Account: a sub-account of the key's account; deletion starts a waiting period.
import { z } from "zod";
import { defineFamily } from "./family.ts";
import { name } from "./fields.ts";
import type { MemberDocs } from "./docs.ts";

const shape = {
  name,
  /** Identity graph version the account matches people with (values not shown). */
  identity_graph: z.string().min(1).optional(),
  /** Branding of reports and the app (shape not shown, kept permissive). */
  branding: z.record(z.string(), z.unknown()).optional(),
};

const accountAnswers = {
  /** The account's API key; always answered as `<secret>`. */
  api_key: z.string().nullish(),
  contract_started_at: z.string().nullish(),
  parent_account_id: z.string().nullish(),
  /** Set once a delete was asked: the service removes the account after its waiting period. */
  deletion_requested_at: z.string().nullish(),
};

/** Field docs of accounts, by member path (see docs.ts). */
export const accountDocs = {
  identity_graph: "Identity graph version the account matches people with.",
  branding: "Branding of reports and the app (shape not published).",
  api_key: "The account's API key. The service never answers the key itself: this output is always the placeholder `<secret>` (kept secret); the key is given out by the service, not through its API.",
  contract_started_at: "When the account's contract started.",
  parent_account_id: "Id of the parent account.",
  deletion_requested_at: "When its deletion was asked (by a destroy); the service removes the account after its waiting period.",
} as const satisfies MemberDocs;

export const account = defineFamily({
  name: "account",
  className: "Account",
  summary: "A sub-account (its `apiKey` output is only the placeholder `<secret>`: the service never answers the key). Destroy requests deletion, which the service carries out after its waiting period.",
  collection: "accounts",
  shape,
  answers: accountAnswers,
  docs: accountDocs,
  secrets: ["api_key"],
  builds: false,
  archivable: false,
  deletion: "scheduled",
});
