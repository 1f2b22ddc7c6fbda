// Use case: a knowledgebase entry describing what an account should be configured for.
import { z } from "zod";
import { defineFamily } from "./family.ts";
import { name } from "./fields.ts";
import type { MemberDocs } from "./docs.ts";

const shape = {
  name,
  description: z.string().optional(),
  /** Guide and preface content; null on PATCH clears them. */
  guide: z.string().optional(),
  preface: z.string().optional(),
  draft: z.boolean().optional(),
  /** Deprecated. */
  resources: z.array(z.unknown()).optional().meta({ deprecated: true }),
};

/** Set by the service's review; absent until a review has classified the use case. */
const useCaseAnswers = {
  provisioning_guide: z.unknown().optional(),
  enrollment_creates_resources: z.boolean().nullish(),
  applies_to: z.enum(["this_account", "subaccounts"]).nullish(),
  generated_guide_status: z.string().nullish(),
};

/** Field docs of use cases, by member path (see docs.ts). */
export const useCaseDocs = {
  description: "What the use case is.",
  guide: "Guide content; `null` on update clears it.",
  preface: "Preface content; `null` on update clears it.",
  draft: "Whether the use case is a draft.",
  resources: { doc: "Resources of the use case.", deprecated: "No replacement." },
  provisioning_guide: "Provisioning guide, set by the service's review.",
  enrollment_creates_resources: "Whether enrolling creates resources, set by the service's review.",
  applies_to: "`this_account` or `subaccounts`, set by the service's review.",
  generated_guide_status: "Status of the implementation guide generated for use cases that apply to subaccounts.",
} as const satisfies MemberDocs;

export const useCase = defineFamily({
  name: "use_case",
  className: "UseCase",
  summary: "A knowledgebase use case.",
  collection: "use_cases",
  path: "knowledgebase/use_cases",
  shape,
  answers: useCaseAnswers,
  docs: useCaseDocs,
  builds: false,
  archivable: false,
});
