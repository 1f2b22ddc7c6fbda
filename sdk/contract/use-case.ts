// Use case: a knowledgebase entry describing what an account should be configured for.
import { z } from "zod";
import { body, defineFamily, name, patchOf, responseOf, type MergePatchOf } from "./common.ts";

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

export const useCaseCreate = body(shape);
export const useCasePatch = patchOf(shape);
/** Set by the service's review; absent until a review has classified the use case. */
export const useCaseResponse = responseOf(shape, {
  provisioning_guide: z.unknown().optional(),
  enrollment_creates_resources: z.boolean().nullish(),
  applies_to: z.enum(["this_account", "subaccounts"]).nullish(),
  generated_guide_status: z.string().nullish(),
});
export type UseCaseCreate = z.input<typeof useCaseCreate>;
export type UseCasePatch = MergePatchOf<UseCaseCreate>;
export type UseCaseResponse = z.output<typeof useCaseResponse>;

export const useCase = defineFamily({
  name: "use_case",
  className: "UseCase",
  collection: "use_cases",
  path: "knowledgebase/use_cases",
  create: useCaseCreate,
  patch: useCasePatch,
  response: useCaseResponse,
  builds: false,
  archivable: false,
});
