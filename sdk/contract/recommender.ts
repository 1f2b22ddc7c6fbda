// Recommender: ranks the values of an event stream property for each person.
import { z } from "zod";
import { body, defineFamily, id, name, patchOf, responseOf, type MergePatchOf } from "./common.ts";
import { predictors } from "./outcome.ts";

/** Beyond report_url and predictors the spec shows no fields; stream_name / stream_property_name follow the service's client. */
const shape = {
  name,
  stream_name: z.string().min(1),
  stream_property_name: z.string().min(1),
  eligible_cohort_id: id.optional(),
  predictors: predictors.optional(),
  preview: z.boolean().optional(),
};

export const recommenderCreate = body(shape);
export const recommenderPatch = patchOf(shape);
export const recommenderResponse = responseOf(shape, { report_url: z.string().nullish() });
export type RecommenderCreate = z.input<typeof recommenderCreate>;
export type RecommenderPatch = MergePatchOf<RecommenderCreate>;
export type RecommenderResponse = z.output<typeof recommenderResponse>;

export const recommender = defineFamily({
  name: "recommender",
  className: "Recommender",
  collection: "recommenders",
  create: recommenderCreate,
  patch: recommenderPatch,
  response: recommenderResponse,
  references: [{ path: "eligible_cohort_id", collection: "cohorts" }],
});
