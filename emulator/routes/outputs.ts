// What pipelines deliver, over HTTP: hosted CSV downloads (API key or signed URL), lookups, target previews,
// the analysis PDF and every analysis route. All of it is computed from the account's synthetic world
// (emulator/world); what builds fill in is each family's `build` (emulator/families).
import type { FastifyInstance, FastifyRequest } from "fastify";
import { lookupRequest, validate } from "pulumi-audience/sdk/contract";
import type { EmulatorContext } from "../context.ts";
import { ApiError, badRequest, conflict, fieldError, notFound, validationFailed } from "../errors.ts";
import { signUrl } from "../signing.ts";
import type { Doc, StoredResource } from "../state.ts";
import type { World } from "../world/population.ts";
import type { Resources } from "../world/resources.ts";
import {
  cohortMembership, outcomeAnalysis, recommenderAnalysis, personaDimensions, personaFlow, scopeAnalysis, scopeEfficacy, scopeGeography, streamAnalysis, targetAnalysis, traitDimensions,
} from "../outputs/analysis.ts";
import { csvOptionsOf, csvStream } from "../outputs/csv.ts";
import { INSUFFICIENT_IDENTITY, lookup } from "../outputs/lookup.ts";
import { targetAnalysisPdf } from "../outputs/pdf.ts";
import { PREVIEW_ROW_LIMIT, targetTable } from "../outputs/target.ts";
import { lookupUsage } from "../outputs/usage.ts";
import { resourcesOf as accountResources } from "../outputs/worlds.ts";

type Params = { id: string };
const PDF_URL_TTL_MS = 15 * 60_000;

export function register(app: FastifyInstance, ctx: EmulatorContext): void {
  const worldOf = ctx.worldOf;
  const resourcesOf = (accountId: string): Resources => accountResources(ctx.resources, accountId);
  /** Outputs engine errors name the member and resource at fault: the caller's request is what is wrong. */
  const attempt = <T>(compute: () => T): T => {
    try {
      return compute();
    } catch (error) {
      if (error instanceof ApiError) throw error;
      throw badRequest((error as Error).message);
    }
  };
  const scopeOf = (target: StoredResource) => {
    const scope = ctx.state.resource("scopes", String(target.doc.scope_id));
    if (!scope || scope.account_id !== target.account_id) throw badRequest(`The target's scope ${String(target.doc.scope_id)} does not exist`);
    return scope;
  };
  const optionsType = (target: StoredResource) => String((target.doc.options as Doc | undefined)?.type ?? "");
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
    return attempt(() => targetTable(worldOf(target.account_id), target.doc, scope.doc, resourcesOf(target.account_id), rowLimit === undefined ? {} : { rowLimit }));
  };

  app.get<{ Params: Params }>("/targets/:id/download.csv", { config: { signed: true } }, (request, reply) => {
    const target = delivered(targetFor(request));
    if (optionsType(target) === "lookup_api") throw badRequest("A lookup_api target delivers no file: use POST /targets/{id}/lookup");
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
    if (optionsType(target) !== "lookup_api") throw badRequest(`Target ${request.params.id} is not a lookup_api target (options.type is ${optionsType(target)})`);
    const body = request.body;
    if (typeof body !== "object" || body === null || Array.isArray(body)) throw badRequest("The lookup body must be a JSON object of identifying fields or identity_sets");
    const parsed = validate(lookupRequest, body);
    if (!parsed.ok) {
      // The contract's whole-body "cannot identify anyone" rule is answered on identity_sets, as the service does.
      throw validationFailed(parsed.errors.map((e) => (e.path === "" && e.context.errorType === "custom"
        ? fieldError("identity_sets", INSUFFICIENT_IDENTITY, "insufficient_identity") : e)));
    }
    const scope = scopeOf(target);
    const answer = attempt(() => lookup(worldOf(target.account_id), target.doc, scope.doc, resourcesOf(target.account_id), body as Doc));
    const answered = Object.keys(answer).filter((k) => answer[k] !== null && k !== "error");
    for (const [metric, n] of lookupUsage(answer.error === undefined ? answered : [], scope.doc.preview === true)) ctx.usage.add(target.account_id, metric, n);
    return reply.code(200).send(answer);
  });

  app.post<{ Params: Params }>("/targets/:id/preview", (request, reply) => {
    const target = ctx.owned(request, "targets", request.params.id);
    if (optionsType(target) === "lookup_api") throw badRequest("A lookup_api target has no delivery to preview");
    let rows = 0;
    for (const _row of table(target, PREVIEW_ROW_LIMIT).rows()) rows++;
    return reply.send({ message: `Delivered the first ${rows} rows of target ${request.params.id}`, target_id: request.params.id });
  });

  const analysisOf = (target: StoredResource) => attempt(() => targetAnalysis(worldOf(target.account_id), target.doc, scopeOf(target).doc, resourcesOf(target.account_id)));
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

  const scoped = (collection: string, compute: (world: World, doc: Doc, res: Resources, resource: StoredResource) => Doc) =>
    (request: FastifyRequest<{ Params: Params }>) => {
      const resource = ctx.owned(request, collection, request.params.id);
      return attempt(() => compute(worldOf(resource.account_id), resource.doc, resourcesOf(resource.account_id), resource));
    };
  app.get<{ Params: Params }>("/scopes/:id/analysis", scoped("scopes", scopeAnalysis));
  app.get<{ Params: Params }>("/scopes/:id/analysis/geography", scoped("scopes", (w, doc, res) => scopeGeography(w, doc, res, doc.status === "ready")));
  app.get<{ Params: Params }>("/scopes/:id/efficacy", scoped("scopes", scopeEfficacy));
  app.get<{ Params: Params }>("/cohorts/:id/analysis/membership", scoped("cohorts", cohortMembership));
  app.get<{ Params: Params }>("/outcomes/:id/analysis", scoped("outcomes", outcomeAnalysis));
  app.get<{ Params: Params }>("/recommenders/:id/analysis", scoped("recommenders", recommenderAnalysis));
  app.get<{ Params: Params }>("/persona_sets/:id/analysis/dimensions", scoped("persona_sets", personaDimensions));
  app.get<{ Params: Params }>("/persona_sets/:id/analysis/flow", scoped("persona_sets", personaFlow));
  app.get<{ Params: Params }>("/traits/:id/analysis/dimensions", scoped("traits", (w, doc) => ({ trait_id: doc.id, ...traitDimensions(w, String(doc.name)) })));
  app.get<{ Params: { id: string } }>("/streams/:id/analysis", (request, reply) => {
    const accountId = ctx.account(request).id;
    // A stream is named by its id or its name.
    const stream = ctx.state.resources(accountId, "streams").find((s) => s.doc.id === request.params.id || s.doc.name === request.params.id);
    if (!stream) throw notFound(`No stream with id or name ${request.params.id} exists`);
    return reply.send({ stream_id: stream.doc.id, ...streamAnalysis(worldOf(accountId), String(stream.doc.name), resourcesOf(accountId)) });
  });
}
