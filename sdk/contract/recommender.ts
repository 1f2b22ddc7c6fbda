// Recommender: ranks the values of an event stream property for each person.
import { z } from "zod";
import { defineFamily } from "./family.ts";
import { id, name, nameText } from "./fields.ts";
import { predictors, predictorsDocs } from "./outcome.ts";
import { docsUnder, type MemberDocs } from "./docs.ts";

/** Beyond report_url and predictors the spec shows no fields; stream_name / stream_property_name follow the service's client. */
const shape = {
  name,
  stream_name: nameText("must name an event stream"),
  stream_property_name: z.string().min(1),
  eligible_cohort_id: id.optional(),
  predictors: predictors.optional(),
  preview: z.boolean().optional(),
};

const recommenderAnswers = { report_url: z.string().nullish() };

/** Field docs of recommenders, by member path (see docs.ts). */
export const recommenderDocs = {
  stream_name: "The event stream whose property values are ranked.",
  stream_property_name: "The stream property whose values are ranked for each person.",
  eligible_cohort_id: "Id of the cohort of people ranked for.",
  predictors: "What data the model may use.",
  ...docsUnder("predictors", predictorsDocs),
  preview: "`true`: the recommender does not build until preview is turned off.",
  report_url: "Signed URL of the recommender's report.",
} as const satisfies MemberDocs;

export const recommender = defineFamily({
  name: "recommender",
  className: "Recommender",
  summary: "A recommendation model over a stream property.",
  collection: "recommenders",
  previewHoldsBuild: true,
  shape,
  answers: recommenderAnswers,
  docs: recommenderDocs,
  references: [{ path: "eligible_cohort_id", collection: "cohorts" }],
});
