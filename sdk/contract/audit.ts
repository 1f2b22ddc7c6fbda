// Configuration audit: compares an account's configuration with its knowledgebase use cases (created with 202).
import { z } from "zod";
import { common, defineFamily } from "./family.ts";
import { ids } from "./fields.ts";
import type { MemberDocs } from "./docs.ts";

/** Body of POST .../audits; nothing is required (members not shown: an optional use case selection). */
const shape = { use_case_ids: ids.optional() };

const entry = z.record(z.string(), z.unknown());
export const auditResponse = z.object({
  ...common,
  use_case_ids: ids.nullish(),
  name: z.string().nullish(),
  changes: z.array(entry).nullish(),
  orphaned_resources: z.array(entry).nullish(),
  conflicts: z.array(entry).nullish(),
  use_cases: z.array(z.object({ id: z.string(), resources: z.array(entry).nullish() }).loose()).nullish(),
  /** Outcome of POST .../apply. */
  applied_at: z.string().nullish(),
}).loose();

/** Field docs of configuration audits, by member path (see docs.ts). */
export const auditDocs = {
  use_case_ids: "Ids of the use cases audited; all of them when absent.",
  name: "The audit's name, when it has one.",
  changes: "Changes that would bring the configuration in line with the use cases.",
  orphaned_resources: "Resources no use case accounts for.",
  conflicts: "Conflicts between use cases and the configuration.",
  use_cases: "The use cases audited.",
  "use_cases[].id": "Id of the use case.",
  "use_cases[].resources": "The resources of the use case.",
  applied_at: "When the audit's changes were applied.",
} as const satisfies MemberDocs;

export const audit = defineFamily({
  name: "audit",
  className: "ConfigurationAudit",
  summary: "A configuration audit of the current account against its use cases (never deleted by the service: destroy forgets it).",
  collection: "audits",
  path: "accounts/current/audits",
  shape,
  response: auditResponse,
  docs: auditDocs,
  // No references: an audit reads the configuration, it is no part of the dependency graph.
  // The service takes no PATCH of an audit: other use cases make another audit.
  createOnly: ["use_case_ids"],
  createdStatus: 202,
  deletable: false,
  archivable: false,
});
