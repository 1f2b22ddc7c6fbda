// Serving outputs over HTTP, as family modules do: an outputs engine error is the caller's (a 400 naming the
// member at fault), and one resource's analysis is computed from its account's world and resources.
import type { FastifyRequest } from "fastify";
import type { Collection } from "pulumi-audience/sdk/contract";
import type { EmulatorContext } from "../context.ts";
import { ApiError, badRequest } from "../errors.ts";
import type { EmulatorFamily } from "../family.ts";
import { ok, param } from "../openapi.ts";
import type { Doc, StoredResource } from "../state.ts";
import type { World } from "../world/population.ts";
import type { Resources } from "../world/resources.ts";
import { resourcesOf } from "./worlds.ts";

type Params = { id: string };

/** Outputs engine errors name the member and resource at fault: the caller's request is what is wrong. */
export function attempt<T>(compute: () => T): T {
  try {
    return compute();
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw badRequest((error as Error).message);
  }
}

type Analysis = (world: World, doc: Doc, resources: Resources, resource: StoredResource) => Doc;

/** A handler answering what `compute` makes of the resource of `collection` the path names. */
export function analysisOf(ctx: EmulatorContext, collection: string, compute: Analysis) {
  return (request: FastifyRequest<{ Params: Params }>) => {
    const resource = ctx.owned(request, collection, request.params.id);
    return attempt(() => compute(ctx.worldOf(resource.account_id), resource.doc, resourcesOf(ctx.resources, resource.account_id), resource));
  };
}

/** A family's analysis endpoint, `/<collection>/{id}/<suffix>`: its route and its /openapi.json entry from one path. */
export function analysisEndpoint(collection: Collection, suffix: string, compute: Analysis, summary: string): Pick<EmulatorFamily, "routes" | "openApi"> {
  return {
    routes(app, ctx) {
      app.get<{ Params: Params }>(`/${collection}/:id/${suffix}`, analysisOf(ctx, collection, compute));
    },
    openApi: () => ({ paths: { [`/${collection}/{id}/${suffix}`]: { get: { summary, parameters: [param()], responses: ok() } } } }),
  };
}
