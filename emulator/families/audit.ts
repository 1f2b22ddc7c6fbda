// Configuration audits: a build lists the orphaned resources (nothing downstream uses them). An account's audits
// are also read, made and applied under /accounts/{id}/audits, by the account or its parent.
import type { FastifyRequest } from "fastify";
import { families, validate } from "pulumi-audience/sdk/contract";
import { notFound, validationFailed } from "../errors.ts";
import type { EmulatorFamily } from "../family.ts";
import { errors, json, param } from "../openapi.ts";
import { now, type Doc, type ServiceState, type StoredResource } from "../state.ts";
import { readableAccount } from "./account.ts";

/** Orphaned resources: nothing downstream uses them. */
function buildAudit(state: ServiceState, resource: StoredResource): Doc {
  const candidates = state.allResources(resource.account_id).filter((r) =>
    ["cohorts", "outcomes", "persona_sets", "recommenders", "scopes", "datasets", "connections"].includes(r.collection)
    && r.doc.archived_at == null && r.doc.managed !== true);
  const orphaned = candidates.filter((r) => state.downstreamOf(resource.account_id, String(r.doc.id)).length === 0)
    .map((r) => ({ resource_type: r.collection, resource_id: r.doc.id, name: r.doc.name ?? null }));
  const useCases = state.resources(resource.account_id, "use_cases").map((u) => ({ id: u.doc.id, name: u.doc.name, resources: [] }));
  return { changes: [], conflicts: [], orphaned_resources: orphaned, use_cases: useCases };
}

export const audit: EmulatorFamily = {
  collection: "audits",
  build: (ctx, resource) => buildAudit(ctx.state, resource),
  // "Deleted use cases are not returned by any read": an audit built before the delete no longer lists it.
  present(ctx, _request, doc) {
    if (!Array.isArray(doc.use_cases)) return doc;
    const useCases = (doc.use_cases as Doc[]).filter((u) => ctx.state.resource("use_cases", String(u.id)) !== undefined);
    return useCases.length === doc.use_cases.length ? doc : { ...doc, use_cases: useCases };
  },
  routes(app, ctx) {
    const { state, builds } = ctx;
    // Applying records the outcome; this emulator's audits never propose changes, so nothing else moves.
    const apply = (request: FastifyRequest, accountId: string, auditId: string) => {
      const audit = state.resource("audits", auditId);
      if (!audit || audit.account_id !== accountId) throw notFound(`No audit ${auditId} exists for account ${accountId}`);
      const at = now();
      const changes = ((audit.doc.changes ?? []) as Doc[]).map((c) => ({ ...c, outcome: "applied", applied_at: at }));
      const applied = { ...audit, doc: { ...audit.doc, changes, applied_at: at, apply_outcome: "succeeded", updated_at: at } };
      state.store.transaction(() => state.save(applied));
      return ctx.present(request, applied);
    };
    const accountOf = (request: FastifyRequest, id: string) => readableAccount(ctx, request, id).id;

    app.post<{ Params: { account: string; id: string } }>("/accounts/:account/audits/:id/apply", (request, reply) =>
      reply.code(202).send(apply(request, accountOf(request, request.params.account), request.params.id)));
    app.get<{ Params: { account: string } }>("/accounts/:account/audits", (request, reply) =>
      reply.send(state.resources(accountOf(request, request.params.account), "audits").map((a) => ctx.present(request, a))));
    app.get<{ Params: { account: string; id: string } }>("/accounts/:account/audits/:id", (request, reply) => {
      const accountId = accountOf(request, request.params.account);
      const audit = state.resource("audits", request.params.id);
      if (!audit || audit.account_id !== accountId) throw notFound(`No audit ${request.params.id} exists for account ${accountId}`);
      return reply.send(ctx.present(request, audit));
    });
    app.post<{ Params: { account: string } }>("/accounts/:account/audits", (request, reply) => {
      const accountId = accountOf(request, request.params.account);
      const family = families.audits;
      const parsed = validate(family.create, request.body ?? {}, family.readOnly);
      if (!parsed.ok) throw validationFailed(parsed.errors);
      const audit = state.store.transaction(() => {
        const inserted = state.insert(accountId, "audits", { ...(parsed.value as Doc), status: "new" });
        return builds.start(state.resource("audits", String(inserted.id))!);
      });
      return reply.code(202).send(ctx.present(request, audit));
    });
  },
  openApi: () => ({
    paths: {
      "/accounts/{id}/audits/{audit_id}/apply": { post: { summary: "Apply a configuration audit", parameters: [param(), param("audit_id")], responses: { 202: { description: "Accepted", ...json({ type: "object" }) }, ...errors } } },
    },
  }),
};
