// Traits: every trait the account can read, as CSV, and a trait's value distribution.
import { stringify } from "csv-stringify/sync";
import type { EmulatorFamily } from "../family.ts";
import { errors, ok, param } from "../openapi.ts";
import { traitDimensions } from "../outputs/analysis.ts";
import { analysisOf } from "../outputs/http.ts";

const COLUMNS = ["id", "name", "category", "statistical_type", "literate", "description", "unit", "coverage", "precision", "tier", "deprecated"];

export const trait: EmulatorFamily = {
  collection: "traits",
  routes(app, ctx) {
    app.get("/traits.csv", (request, reply) => {
      const traits = ctx.state.resources(ctx.account(request).id, "traits").map((t) => COLUMNS.map((c) => {
        const v = t.doc[c];
        return v === undefined || v === null ? "" : typeof v === "object" ? JSON.stringify(v) : String(v);
      }));
      return reply.type("text/csv; charset=utf-8").send(stringify([COLUMNS, ...traits]));
    });
    app.get<{ Params: { id: string } }>("/traits/:id/analysis/dimensions", analysisOf(ctx, "traits", (w, doc) => ({ trait_id: doc.id, ...traitDimensions(w, String(doc.name)) })));
  },
  openApi: () => ({
    paths: {
      "/traits/{id}/analysis/dimensions": { get: { summary: "A trait's value distribution", parameters: [param()], responses: ok() } },
      "/traits.csv": { get: { summary: "Every trait, as CSV", responses: { 200: { description: "CSV", content: { "text/csv": { schema: { type: "string" } } } }, ...errors } } },
    },
  }),
};
