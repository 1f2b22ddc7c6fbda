// Configuration audit: compares an account's configuration with its knowledgebase use cases (created with 202).
import { z } from "zod";
import { body, common, defineFamily, ids, patchOf, type MergePatchOf } from "./common.ts";

/** Body of POST .../audits; nothing is required (members not shown: an optional use case selection). */
const shape = { use_case_ids: ids.optional() };

export const auditCreate = body(shape);
export const auditPatch = patchOf(shape);
const entry = z.record(z.string(), z.unknown());
export const auditResponse = z.object({
  ...common,
  name: z.string().nullish(),
  changes: z.array(entry).nullish(),
  orphaned_resources: z.array(entry).nullish(),
  conflicts: z.array(entry).nullish(),
  use_cases: z.array(z.object({ id: z.string(), resources: z.array(entry).nullish() }).loose()).nullish(),
  /** Outcome of POST .../apply. */
  applied_at: z.string().nullish(),
}).loose();
export type AuditCreate = z.input<typeof auditCreate>;
export type AuditPatch = MergePatchOf<AuditCreate>;
export type AuditResponse = z.output<typeof auditResponse>;

export const audit = defineFamily({
  name: "audit",
  className: "ConfigurationAudit",
  collection: "audits",
  path: "accounts/current/audits",
  create: auditCreate,
  patch: auditPatch,
  response: auditResponse,
  // No references: an audit reads the configuration, it is no part of the dependency graph.
  createdStatus: 202,
  deletable: false,
  archivable: false,
});
