// Outcomes: like persona sets, not built while `preview` is true; they answer their model's analysis.
import type { EmulatorFamily } from "../family.ts";
import { outcomeAnalysis } from "../outputs/analysis.ts";
import { analysisEndpoint } from "../outputs/http.ts";

export const outcome: EmulatorFamily = {
  collection: "outcomes",
  ...analysisEndpoint("outcomes", "analysis", outcomeAnalysis, "An outcome's model performance, feature importance, bias and strategies"),
};
