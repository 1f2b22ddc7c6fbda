// Migration: moves an account from identity graph v1 to v2, pairing its resources; approved by either account.
import { z } from "zod";
import { defineFamily } from "./family.ts";
import { expected, id, instant, timestamp } from "./fields.ts";
import { docsUnder, type MemberDocs } from "./docs.ts";

/** A v1 resource and its v2 counterpart (pair shape not shown: the two ids). */
const pair = z.strictObject({ v1_id: id, v2_id: id });
const targetPair = z.strictObject({
  v1_id: id,
  v2_id: id,
  /** How the v2 target's destination maps from the v1 one (shape not shown). */
  destination_mapping: z.record(z.string(), z.unknown()).optional(),
  /** Forces push readiness despite review notes. */
  override: z.boolean().optional(),
});

const shape = {
  name: z.string().min(1).optional(),
  type: z.literal("identity_graph_v1_to_v2", { error: expected("identity_graph_v1_to_v2") }),
  v1_account_id: id,
  v2_account_id: id,
  notes: z.string().optional(),
  /** Approval: a non-null time from either linked account; the first one is kept. */
  approved_at: instant.optional(),
  datasets: z.array(pair).optional(),
  targets: z.array(targetPair).optional(),
  cohorts: z.array(pair).optional(),
  outcomes: z.array(pair).optional(),
  persona_sets: z.array(pair).optional(),
  recommenders: z.array(pair).optional(),
};

/** What the service answers beyond the members written (a migration needs no name; pairs gain their readiness). */
const migrationAnswers = {
  name: z.string().nullish(),
  finished_at: timestamp.nullish(),
  rolled_back_at: timestamp.nullish(),
  status_needs_fix_from: z.enum(["user", "support"]).nullish(),
  account_tree_relationship: z.string().nullish(),
  targets: z.array(z.object({
    v1_id: z.string(),
    v2_id: z.string(),
    push_readiness: z.object({ status: z.enum(["ready", "needs_external_review", "blocked"]) }).loose().nullish(),
  }).loose()).nullish(),
};

const pairDocs = { v1_id: "Id of the resource in the v1 account.", v2_id: "Id of its counterpart in the v2 account." } as const;

/** Field docs of migrations, by member path (see docs.ts). */
export const migrationDocs = {
  name: "A name for the migration (optional).",
  type: "The migration kind; only `identity_graph_v1_to_v2`.",
  v1_account_id: "Id of the account moved from identity graph v1. It and the v2 account must be related in the account hierarchy.",
  v2_account_id: "Id of the account on identity graph v2.",
  notes: "Notes on the migration.",
  approved_at: "Approval time: a non-null time from either linked account approves; the first one is kept, so once it is set a program declares that time (another, or none, fails the preview).",
  datasets: "Pairs of datasets: v1 and v2 ids.",
  ...docsUnder("datasets[]", pairDocs),
  targets: "Pairs of targets: v1 and v2 ids, with how the destination maps.",
  ...docsUnder("targets[]", pairDocs),
  "targets[].destination_mapping": "How the v2 target's destination maps from the v1 one (shape not published).",
  "targets[].override": "Forces push readiness despite review notes.",
  "targets[].push_readiness": "Whether the pair can be pushed.",
  "targets[].push_readiness.status": "`ready`, `needs_external_review` or `blocked` (an archived v2 target blocks, even when overridden).",
  cohorts: "Pairs of cohorts: v1 and v2 ids.",
  ...docsUnder("cohorts[]", pairDocs),
  outcomes: "Pairs of outcomes: v1 and v2 ids.",
  ...docsUnder("outcomes[]", pairDocs),
  persona_sets: "Pairs of persona sets: v1 and v2 ids.",
  ...docsUnder("persona_sets[]", pairDocs),
  recommenders: "Pairs of recommenders: v1 and v2 ids.",
  ...docsUnder("recommenders[]", pairDocs),
  finished_at: "When the migration finished.",
  rolled_back_at: "When the migration was rolled back.",
  status_needs_fix_from: "Who must fix a failed migration: `user` or `support`; absent while the service retries on its own.",
  account_tree_relationship: "How the two accounts are related.",
} as const satisfies MemberDocs;

export const migration = defineFamily({
  name: "migration",
  className: "Migration",
  summary: "A migration between two related accounts. Changing its type or accounts replaces it.",
  collection: "migrations",
  shape,
  answers: migrationAnswers,
  docs: migrationDocs,
  createOnly: ["type", "v1_account_id", "v2_account_id"],
  setOnce: ["approved_at"],
  // The service refuses a second migration of the same two accounts while the first stands.
  replaceDeletesFirst: true,
  // No references: the pairs name resources of two different accounts, and a migration is never a dependency
  // (it must stay out of the dependency graph the references build).
  builds: false,
  archivable: false,
  // POST /migrations/{id}/force_update refreshes the migration's metrics.
  forceUpdatable: true,
});
