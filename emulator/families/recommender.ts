// Recommenders: like persona sets, not built while `preview` is true; they answer their ranks' analysis.
import type { EmulatorFamily } from "../family.ts";
import { recommenderAnalysis } from "../outputs/analysis.ts";
import { analysisEndpoint } from "../outputs/http.ts";

export const recommender: EmulatorFamily = {
  collection: "recommenders",
  ...analysisEndpoint("recommenders", "analysis", recommenderAnalysis, "People and mean uncalibrated probability per rank"),
};
