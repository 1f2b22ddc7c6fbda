// Every route module of the emulator, registered in this order. A module exports `register(app, ctx)`; a
// family's own routes are its module's `routes` (emulator/families) and come in through `families` below.
//
// What a route module gets (context.ts):
// - `ctx.account(request)` is the request's account (auth already ran); `ctx.owned(request, collection, id)`
//   gives a resource of that account (404 / 403 otherwise); `ctx.present(request, resource)` renders it.
// - `ctx.resources.get / list / update(accountId, collection, ...)` read and annotate wire documents.
// - `ctx.usage.add(accountId, metric, n)` feeds /accounts/current/usage.
// - `ctx.worldOf(accountId)` is the account's synthetic population (`startEmulator({ world })` shapes it).
// - throw `ApiError` (emulator/errors.ts) for any 4xx: the app renders the service's error body.
import type { RouteModule } from "../context.ts";
import { allFamilies } from "../families/index.ts";
import { register as control } from "./control.ts";
import { register as resources } from "./resources.ts";
import { register as graph } from "./graph.ts";
import { register as openapi } from "./openapi.ts";
import { register as locations } from "./locations.ts";
import { register as related } from "./related.ts";
import { register as actions } from "./actions.ts";
import { register as insights } from "./insights.ts";
import { register as traits } from "./traits.ts";
import { register as outputs } from "./outputs.ts";

/** Every family's own routes. */
const families: RouteModule = (app, ctx) => {
  for (const family of allFamilies()) family.emulator.routes?.(app, ctx);
};

/** Special routes first: the generic family routes (last) leave a route that is already served alone. */
export const routes: RouteModule[] = [control, openapi, families, graph, locations, related, actions, insights, traits, outputs, resources];
