// Outcome: a propensity objective: who, among the eligible, attains the attainment cohort.
import { z } from "zod";
import { defineFamily } from "./family.ts";
import { id, isoDate, name, oneOf } from "./fields.ts";
import { docsUnder, type MemberDocs } from "./docs.ts";

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

const outcomeAnswers = { report_url: z.string().nullish() };

/** Field docs of model predictors, wherever they are used. */
export const predictorsDocs = {
  blocked: "Data the model may not use.",
  "blocked.providers": "Data providers the model may not use.",
  max_observation_date: "Caps the provided-attribute data release used for modeling (`YYYY-MM-DD`).",
} as const satisfies MemberDocs;

/** Field docs of outcomes, by member path (see docs.ts). */
export const outcomeDocs = {
  attainment_cohort_id: "Id of the cohort whose membership is predicted: who will attain it.",
  eligible_cohort_id: "Id of the cohort of people eligible to attain.",
  attrition_cohort_id: "Id of the cohort of people who drop out.",
  prediction_mode: "`auto`: re-predicts as data changes; `static`: freezes predictions.",
  predictors: "What data the model may use.",
  ...docsUnder("predictors", predictorsDocs),
  feature_blocklist: "Provided or user-defined traits the model may not use.",
  bias_mitigation: "Bias mitigation settings (shape not published).",
  preview: "`true`: the outcome does not build until preview is turned off.",
  report_url: "Signed URL of the outcome's report.",
} as const satisfies MemberDocs;

export const outcome = defineFamily({
  name: "outcome",
  className: "Outcome",
  summary: "A propensity objective: who will attain the attainment cohort.",
  collection: "outcomes",
  previewHoldsBuild: true,
  shape,
  answers: outcomeAnswers,
  docs: outcomeDocs,
  references: [
    { path: "attainment_cohort_id", collection: "cohorts" },
    { path: "eligible_cohort_id", collection: "cohorts" },
    { path: "attrition_cohort_id", collection: "cohorts" },
  ],
});
