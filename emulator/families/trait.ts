// Traits: every trait the account can read, as CSV, and a trait's value distribution. A trait names the datasets
// configured to emit it now in metadata.emitted_by_datasets (without a parsing report, which the spec lets a
// service omit), so one that stops emitting it leaves the list at once, as for streams.
import { stringify } from "csv-stringify/sync";
import type { EmulatorFamily } from "../family.ts";
import { errors, ok, param } from "../openapi.ts";
import { traitDimensions } from "../outputs/analysis.ts";
import { analysisOf } from "../outputs/http.ts";
import type { Doc } from "../state.ts";

const COLUMNS = ["id", "name", "category", "statistical_type", "literate", "description", "unit", "coverage", "precision", "tier", "deprecated"];

export const trait: EmulatorFamily = {
  collection: "traits",
  present(ctx, _request, doc) {
    const owner = ctx.state.resource("traits", String(doc.id));
    if (!owner) return doc;
    const emitting = [...ctx.state.eachResource(owner.account_id, "datasets")]
      .filter((d) => d.doc.archived_at == null && Object.hasOwn((d.doc.output_to_traits ?? {}) as Doc, String(doc.name)));
    if (emitting.length === 0) return doc;
    return { ...doc, metadata: { ...(doc.metadata as Doc | null | undefined), emitted_by_datasets: emitting.map((d) => ({ dataset_id: d.doc.id })) } };
  },
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
