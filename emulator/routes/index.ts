// The routes of the core, registered in this order; each family's own routes come from its module
// (emulator/families) and are registered before the generic ones, which leave a route already served alone.
//
// What a route module gets (context.ts):
// - `ctx.account(request)` is the request's account (auth already ran); `ctx.owned(request, collection, id)`
//   gives a resource of that account (404 / 403 otherwise); `ctx.present(request, resource)` renders it.
// - `ctx.resources.get / list / update(accountId, collection, ...)` read and annotate wire documents.
// - `ctx.usage.add(accountId, metric, n)` feeds /accounts/current/usage.
// - `ctx.worldOf(accountId)` is the account's synthetic population (`startEmulator({ world })` shapes it).
// - throw `ApiError` (emulator/errors.ts) for any 4xx: the app renders the service's error body.
import type { RouteModule } from "../context.ts";
import type { FamilyRegistry } from "../registry.ts";
import { register as control } from "./control.ts";
import { register as resources } from "./resources.ts";
import { openApi as graphOpenApi, register as graph } from "./graph.ts";
import { openApiRoute } from "./openapi.ts";

/** The route modules of the core and of `families`, in the order they are registered. */
export function routes(families: FamilyRegistry): RouteModule[] {
  /** Every family's own routes, in the contract's order. */
  const own: RouteModule = (app, ctx) => {
    for (const family of families.all()) family.emulator.routes?.(app, ctx);
  };
  return [control, openApiRoute(families, [graphOpenApi]), own, graph, resources(families)];
}
