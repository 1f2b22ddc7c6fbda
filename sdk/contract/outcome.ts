// Outcome: a propensity objective: who, among the eligible, attains the attainment cohort.
import { z } from "zod";
import { body, defineFamily, id, isoDate, name, oneOf, patchOf, responseOf, type MergePatchOf } from "./common.ts";

export const predictors = z.strictObject({
  blocked: z.strictObject({ providers: z.array(z.string().min(1)).optional() }).optional(),
  /** Caps the provided-attribute data release used for modeling. */
  max_observation_date: isoDate.optional(),
});

const shape = {
  name,
  attainment_cohort_id: id,
  eligible_cohort_id: id.optional(),
  attrition_cohort_id: id.optional(),
  /** `static` freezes predictions; `auto` re-predicts as data changes. */
  prediction_mode: oneOf(["auto", "static"]).default("auto"),
  predictors: predictors.optional(),
  /** Provided or user-defined traits the model may not use. */
  feature_blocklist: z.array(z.string().min(1)).optional(),
  /** Bias mitigation settings; shape not shown, kept permissive. */
  bias_mitigation: z.record(z.string(), z.unknown()).optional(),
  /** A preview outcome does not build until preview is turned off. */
  preview: z.boolean().optional(),
};

export const outcomeCreate = body(shape);
export const outcomePatch = patchOf(shape);
export const outcomeResponse = responseOf(shape, { report_url: z.string().nullish() });

export type OutcomeCreate = z.input<typeof outcomeCreate>;
export type OutcomePatch = MergePatchOf<OutcomeCreate>;
export type OutcomeResponse = z.output<typeof outcomeResponse>;

export const outcome = defineFamily({
  name: "outcome",
  className: "Outcome",
  collection: "outcomes",
  create: outcomeCreate,
  patch: outcomePatch,
  response: outcomeResponse,
  references: [
    { path: "attainment_cohort_id", collection: "cohorts" },
    { path: "eligible_cohort_id", collection: "cohorts" },
    { path: "attrition_cohort_id", collection: "cohorts" },
  ],
});
