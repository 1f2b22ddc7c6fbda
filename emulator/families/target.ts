// Targets: answered with their `output_url` (a signed download of a hosted CSV, the lookup endpoint of a
// lookup_api target); a build bills what it delivers; the owner is mailed when it finishes. What a target
// delivers is served here: hosted CSV downloads (API key or signed URL), lookups, previews, the analysis and its
// PDF, all computed from the account's synthetic world (emulator/world).
import type { FastifyRequest } from "fastify";
import { lookupRequest, lookupResponse, validate } from "pulumi-audience/sdk/contract";
import { badRequest, conflict, fieldError, notFound, validationFailed } from "../errors.ts";
import type { EmulatorFamily } from "../family.ts";
import { errors, input, json, ok, output, param, ref } from "../openapi.ts";
import { targetAnalysis } from "../outputs/analysis.ts";
import { csvOptionsOf, csvStream, type DeliveryCount } from "../outputs/csv.ts";
import { attempt } from "../outputs/http.ts";
import { INSUFFICIENT_IDENTITY, lookup } from "../outputs/lookup.ts";
import { targetAnalysisPdf } from "../outputs/pdf.ts";
import { PREVIEW_ROW_LIMIT, targetTable } from "../outputs/target.ts";
import { deliveryUsage, lookupUsage } from "../outputs/usage.ts";
import { resourcesOf } from "../outputs/worlds.ts";
import { signUrl } from "../signing.ts";
import type { Doc, StoredResource } from "../state.ts";

const OUTPUT_URL_TTL_MS = 60 * 60 * 1000;
const PDF_URL_TTL_MS = 15 * 60_000;

type Params = { id: string };

const optionsType = (doc: Doc) => (doc.options as { type?: unknown } | undefined)?.type;

export const target: EmulatorFamily = {
  collection: "targets",
  mailOnReady: true,
  present(ctx, request, doc) {
    const id = String(doc.id);
    if (optionsType(doc) === "hosted_csv") {
      return { ...doc, output_url: ctx.baseUrl(request) + signUrl(`/v1/targets/${id}/download.csv`, new Date(Date.now() + OUTPUT_URL_TTL_MS)) };
    }
    if (optionsType(doc) === "lookup_api") return { ...doc, output_url: `${ctx.baseUrl(request)}/v1/targets/${id}/lookup` };
    return doc;
  },
  build(ctx, resource) {
    const { account_id: accountId, doc } = resource;
    const scope = ctx.state.resource("scopes", String(doc.scope_id));
    // A lookup target answers calls instead of delivering batches; a preview pipeline is not billed.
    if (optionsType(doc) === "lookup_api") return undefined;
    if (scope && scope.doc.preview !== true) ctx.usage.add(accountId, "batch_deployments", 1);
    if (!scope || scope.account_id !== accountId) throw new Error(`The target's scope ${String(doc.scope_id)} does not exist`);
    const delivered = targetTable(ctx.worldOf(accountId), doc, scope.doc, resourcesOf(ctx.resources, accountId));
    const count: DeliveryCount = { rows: 0, located: 0 };
    const distance = delivered.columns.findIndex((c) => c.startsWith("svc_location_distance"));
    for (const row of delivered.rows()) {
      count.rows++;
      if (distance >= 0 && typeof row[distance] === "number") count.located++;
    }
    const location = (scope.doc.payload as Doc | undefined)?.location as Doc | undefined;
    const nearest = location !== undefined && (location.selection ?? "nearest") === "nearest";
    for (const [metric, n] of deliveryUsage(delivered.columns, count, scope.doc.preview === true, nearest)) ctx.usage.add(accountId, metric, n);
    return undefined;
  },  routes(app, ctx) {
    const worldOf = ctx.worldOf;
    const scopeOf = (target: StoredResource) => {
      const scope = ctx.state.resource("scopes", String(target.doc.scope_id));
      if (!scope || scope.account_id !== target.account_id) throw badRequest(`The target's scope ${String(target.doc.scope_id)} does not exist`);
      return scope;
    };
    const typeOf = (target: StoredResource) => String(optionsType(target.doc) ?? "");
    /** A target reached with the API key, or (on signed routes) through a valid signed URL. */
    const targetFor = (request: FastifyRequest<{ Params: Params }>) => {
      if (request.account) return ctx.owned(request, "targets", request.params.id);
      const target = ctx.state.resource("targets", request.params.id);
      if (!target) throw notFound(`No target with id ${request.params.id} exists`);
      return target;
    };
    /** A hosted file or lookup exists once the target's first build has finished. */
    const delivered = (target: StoredResource) => {
      if (target.doc.last_updated_output_at == null) {
        throw conflict(`Target ${String(target.doc.id)} has not delivered yet (status ${String(target.doc.status)}): its output exists once its first build finishes`);
      }
      return target;
    };
    const table = (target: StoredResource, rowLimit?: number) => {
      const scope = scopeOf(target);
      return attempt(() => targetTable(worldOf(target.account_id), target.doc, scope.doc, resourcesOf(ctx.resources, target.account_id), rowLimit === undefined ? {} : { rowLimit }));
    };

    app.get<{ Params: Params }>("/targets/:id/download.csv", { config: { signed: true } }, (request, reply) => {
      const target = delivered(targetFor(request));
      if (typeOf(target) === "lookup_api") throw badRequest("A lookup_api target delivers no file: use POST /targets/{id}/lookup");
      const csv = csvOptionsOf(target.doc.options as Doc | undefined);
      const body = csvStream(table(target), csv);
      const name = `target-${request.params.id}.csv${csv.gzip ? ".gz" : ""}`;
      return reply
        .type(csv.gzip ? "application/gzip" : "text/csv; charset=utf-8")
        .header("content-disposition", `attachment; filename="${name}"`)
        .send(body);
    });

    app.post<{ Params: Params }>("/targets/:id/lookup", (request, reply) => {
      const target = delivered(ctx.owned(request, "targets", request.params.id));
      if (typeOf(target) !== "lookup_api") throw badRequest(`Target ${request.params.id} is not a lookup_api target (options.type is ${typeOf(target)})`);
      const body = request.body;
      if (typeof body !== "object" || body === null || Array.isArray(body)) throw badRequest("The lookup body must be a JSON object of identifying fields or identity_sets");
      const parsed = validate(lookupRequest, body);
      if (!parsed.ok) {
        // The contract's whole-body "cannot identify anyone" rule is answered on identity_sets, as the service does.
        throw validationFailed(parsed.errors.map((e) => (e.path === "" && e.context.errorType === "custom"
          ? fieldError("identity_sets", INSUFFICIENT_IDENTITY, "insufficient_identity") : e)));
      }
      const scope = scopeOf(target);
      const answer = attempt(() => lookup(worldOf(target.account_id), target.doc, scope.doc, resourcesOf(ctx.resources, target.account_id), body as Doc));
      const answered = Object.keys(answer).filter((k) => answer[k] !== null && k !== "error");
      for (const [metric, n] of lookupUsage(answer.error === undefined ? answered : [], scope.doc.preview === true)) ctx.usage.add(target.account_id, metric, n);
      return reply.code(200).send(answer);
    });

    app.post<{ Params: Params }>("/targets/:id/preview", (request, reply) => {
      const target = ctx.owned(request, "targets", request.params.id);
      if (typeOf(target) === "lookup_api") throw badRequest("A lookup_api target has no delivery to preview");
      let rows = 0;
      for (const _row of table(target, PREVIEW_ROW_LIMIT).rows()) rows++;
      return reply.send({ message: `Delivered the first ${rows} rows of target ${request.params.id}`, target_id: request.params.id });
    });

    const analysisOf = (target: StoredResource) => attempt(() => targetAnalysis(worldOf(target.account_id), target.doc, scopeOf(target).doc, resourcesOf(ctx.resources, target.account_id)));
    app.get<{ Params: Params }>("/targets/:id/analysis", (request, reply) => reply.send(analysisOf(ctx.owned(request, "targets", request.params.id))));
    app.get<{ Params: Params }>("/targets/:id/pdf", (request, reply) => {
      ctx.owned(request, "targets", request.params.id);
      const url = ctx.baseUrl(request) + signUrl(`/v1/targets/${request.params.id}/analysis.pdf`, new Date(Date.now() + PDF_URL_TTL_MS));
      return reply.redirect(url, 302);
    });
    app.get<{ Params: Params }>("/targets/:id/analysis.pdf", { config: { signed: true } }, async (request, reply) => {
      const target = targetFor(request);
      const pdf = await targetAnalysisPdf(analysisOf(target), String(target.doc.name ?? target.doc.id));
      return reply.type("application/pdf").send(pdf);
    });
  },
  openApi: () => ({
    schemas: { LookupRequest: input(lookupRequest), LookupResponse: output(lookupResponse) },
    paths: {
      "/targets/{id}/lookup": { post: { summary: "Look one person up through a lookup_api target (200, not 201)", parameters: [param()], requestBody: { required: true, ...json(ref("LookupRequest")) }, responses: ok(ref("LookupResponse")) } },
      "/targets/{id}/download.csv": { get: { summary: "A hosted_csv target's delivery (also at its signed output_url)", parameters: [param()], responses: { 200: { description: "CSV, gzip-compressed when options.gzip", content: { "text/csv": { schema: { type: "string" } }, "application/gzip": { schema: { type: "string", format: "binary" } } } }, ...errors } } },
      "/targets/{id}/preview": { post: { summary: "Deliver the first rows of a target", parameters: [param()], responses: ok() } },
      "/targets/{id}/analysis": { get: { summary: "A target's analysis", parameters: [param()], responses: ok() } },
      "/targets/{id}/pdf": { get: { summary: "Redirects to a signed URL of the analysis as PDF", parameters: [param()], responses: { 302: { description: "Signed PDF URL in Location" }, ...errors } } },
    },
  }),
};
