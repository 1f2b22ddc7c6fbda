// GET /traits.csv: every trait the account can read, as CSV.
import type { FastifyInstance } from "fastify";
import { stringify } from "csv-stringify/sync";
import type { EmulatorContext } from "../context.ts";

const COLUMNS = ["id", "name", "category", "statistical_type", "literate", "description", "unit", "coverage", "precision", "tier", "deprecated"];

export function register(app: FastifyInstance, ctx: EmulatorContext): void {
  app.get("/traits.csv", (request, reply) => {
    const traits = ctx.state.resources(ctx.account(request).id, "traits").map((t) => COLUMNS.map((c) => {
      const v = t.doc[c];
      return v === undefined || v === null ? "" : typeof v === "object" ? JSON.stringify(v) : String(v);
    }));
    return reply.type("text/csv; charset=utf-8").send(stringify([COLUMNS, ...traits]));
  });
}
