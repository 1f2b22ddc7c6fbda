// Outcomes: like persona sets, not built while `preview` is true; they answer their model's analysis.
import type { EmulatorFamily } from "../family.ts";
import { ok, param } from "../openapi.ts";
import { outcomeAnalysis } from "../outputs/analysis.ts";
import { analysisOf } from "../outputs/http.ts";

export const outcome: EmulatorFamily = {
  collection: "outcomes",
  previewHoldsBuild: true,
  routes(app, ctx) {
    app.get<{ Params: { id: string } }>("/outcomes/:id/analysis", analysisOf(ctx, "outcomes", outcomeAnalysis));
  },
  openApi: () => ({
    paths: { "/outcomes/{id}/analysis": { get: { summary: "An outcome's model performance, feature importance, bias and strategies", parameters: [param()], responses: ok() } } },
  }),
};
