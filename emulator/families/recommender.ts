// Recommenders: like persona sets, not built while `preview` is true; they answer their ranks' analysis.
import type { EmulatorFamily } from "../family.ts";
import { ok, param } from "../openapi.ts";
import { recommenderAnalysis } from "../outputs/analysis.ts";
import { analysisOf } from "../outputs/http.ts";

export const recommender: EmulatorFamily = {
  collection: "recommenders",
  previewHoldsBuild: true,
  routes(app, ctx) {
    app.get<{ Params: { id: string } }>("/recommenders/:id/analysis", analysisOf(ctx, "recommenders", recommenderAnalysis));
  },
  openApi: () => ({
    paths: { "/recommenders/{id}/analysis": { get: { summary: "People and mean uncalibrated probability per rank", parameters: [param()], responses: ok() } } },
  }),
};
