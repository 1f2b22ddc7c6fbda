// The dependency graph: one edge per reference from a downstream resource to an upstream one.
import type { FastifyInstance } from "fastify";
import type { EmulatorContext } from "../context.ts";
import { ok, list, type OpenApiEntries } from "../openapi.ts";
import type { Doc } from "../state.ts";

function side(prefix: "upstream" | "downstream", collection: string, doc: Doc): Doc {
  return {
    [`${prefix}_id`]: doc.id, [`${prefix}_type`]: collection, [`${prefix}_status`]: doc.status,
    [`${prefix}_literate`]: doc.name ?? null, [`${prefix}_archived_at`]: doc.archived_at ?? null,
    [`${prefix}_status_error`]: doc.status_error ?? null,
  };
}

export function register(app: FastifyInstance, ctx: EmulatorContext): void {
  const edges = (accountId: string): Doc[] => {
    const out: Doc[] = [];
    for (const downstream of ctx.state.allResources(accountId)) {
      const seen = new Set<string>();
      for (const ref of ctx.state.upstreamOf(downstream)) {
        const upstream = ctx.state.resource(ref.collection, ref.id);
        if (!upstream || upstream.account_id !== accountId || seen.has(ref.id)) continue;
        seen.add(ref.id);
        out.push({ ...side("upstream", upstream.collection, upstream.doc), ...side("downstream", downstream.collection, downstream.doc) });
      }
    }
    return out;
  };

  app.get("/graph", (request, reply) => reply.send(edges(ctx.account(request).id)));
  app.get("/dependencies", (request, reply) => {
    const id = (request.query as { id?: string }).id;
    const all = edges(ctx.account(request).id);
    return reply.send(id === undefined ? all : all.filter((e) => e.upstream_id === id || e.downstream_id === id));
  });
}

export const openApi = (): OpenApiEntries => ({
  paths: {
    "/graph": { get: { summary: "Dependency graph edges with live statuses", responses: ok(list) } },
    "/dependencies": { get: { summary: "Dependency edges, optionally of one resource", parameters: [{ name: "id", in: "query", schema: { type: "string" } }], responses: ok(list) } },
  },
});
