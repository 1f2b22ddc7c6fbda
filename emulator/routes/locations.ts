// Atlas locations (paged) and the ingress logs of atlas and dataset builds.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { notFound } from "../errors.ts";
import type { EmulatorContext } from "../context.ts";
import { idsFilter, sendPage } from "./paging.ts";
import type { StoredResource } from "../state.ts";

type Params = { id: string; log_id: string };

export function register(app: FastifyInstance, ctx: EmulatorContext): void {
  const { state } = ctx;
  const locations = (accountId: string, atlasId?: string) => state.resources(accountId, "locations")
    .filter((r) => atlasId === undefined || r.doc.atlas_id === atlasId)
    .filter((r) => {
      const atlas = state.resource("atlases", String(r.doc.atlas_id));
      return atlas !== undefined && atlas.doc.archived_at == null;
    });

  const page = (request: FastifyRequest, reply: FastifyReply, list: StoredResource[]) => {
    const ids = idsFilter(request.query);
    return sendPage(request, reply, list.filter((r) => !ids || ids.has(String(r.doc.id))).map((r) => ctx.present(request, r)));
  };
  const paged = { config: { paged: true } };
  app.get("/locations", paged, (request, reply) => page(request, reply, locations(ctx.account(request).id)));
  app.get<{ Params: Params }>("/atlases/:id/locations", paged, (request, reply) => {
    const atlas = ctx.owned(request, "atlases", request.params.id);
    return page(request, reply, locations(atlas.account_id, String(atlas.doc.id)));
  });

  for (const collection of ["atlases", "datasets"]) {
    const logs = (accountId: string, id: string) => state.resources(accountId, "ingress_logs").filter((l) => l.doc.source_id === id)
      .reverse();
    const log = (accountId: string, id: string, logId: string) => {
      const found = logs(accountId, id).find((l) => l.doc.id === logId);
      if (!found) throw notFound(`No ingress log ${logId} exists for ${collection} ${id}`);
      return found;
    };
    const summary = (doc: Record<string, unknown>) => Object.fromEntries(Object.entries(doc).filter(([k]) => k !== "unplaced_rows"));
    app.get<{ Params: Params }>(`/${collection}/:id/logs/ingress`, paged, (request, reply) => {
      const owner = ctx.owned(request, collection, request.params.id);
      return sendPage(request, reply, logs(owner.account_id, request.params.id).map((l) => summary(l.doc)));
    });
    app.get<{ Params: Params }>(`/${collection}/:id/logs/ingress/:log_id`, (request, reply) => {
      const owner = ctx.owned(request, collection, request.params.id);
      return reply.send(summary(log(owner.account_id, request.params.id, request.params.log_id).doc));
    });
  }
  app.get<{ Params: Params }>("/atlases/:id/logs/ingress/:log_id/unplaced_rows", paged, (request, reply) => {
    const owner = ctx.owned(request, "atlases", request.params.id);
    const found = state.resources(owner.account_id, "ingress_logs").find((l) => l.doc.id === request.params.log_id && l.doc.source_id === request.params.id);
    if (!found) throw notFound(`No ingress log ${request.params.log_id} exists for atlas ${request.params.id}`);
    return sendPage(request, reply, (found.doc.unplaced_rows ?? []) as unknown[]);
  });
}
