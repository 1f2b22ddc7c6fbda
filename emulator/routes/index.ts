// Every route module of the emulator, registered in this order. A module exports `register(app, ctx)`.
//
// Seams for the outputs engine (hosted CSV, lookup, analyses; emulator/world and emulator/outputs):
// - add `emulator/routes/outputs.ts` exporting `register(app, ctx)` and one line in `routes` below;
//   it owns /targets/:id/download.csv, /lookup, /pdf, /preview and the /analysis* and /efficacy routes.
// - `ctx.account(request)` is the request's account (auth already ran); `ctx.owned(request, collection, id)`
//   gives a resource of that account (404 / 403 otherwise); `ctx.present(request, resource)` renders it.
// - `ctx.resources.get / list / update(accountId, collection, ...)` read and annotate wire documents.
// - `ctx.usage.add(accountId, metric, n)` feeds /accounts/current/usage.
// - `ctx.builds.onReady((resource) => ({ population_count: ... }))` runs as a build finishes; what it returns
//   is stored on the resource; throwing fails the build with that message.
// - `ctx.world` is `startEmulator({ world })`, passed through untouched.
// - a target's `output_url` is `${base}/v1/targets/{id}/download.csv?expires=..&signature=..` from
//   `signUrl` in emulator/signing.ts; check it with `verifySignedUrl(request.url)`.
// - throw `ApiError` (emulator/errors.ts) for any 4xx: the app renders the service's error body.
import type { RouteModule } from "../context.ts";
import { register as control } from "./control.ts";
import { register as resources } from "./resources.ts";
import { register as accounts } from "./accounts.ts";
import { register as graph } from "./graph.ts";
import { register as openapi } from "./openapi.ts";
import { register as locations } from "./locations.ts";
import { register as uploads } from "./uploads.ts";
import { register as related } from "./related.ts";
import { register as actions } from "./actions.ts";
import { register as insights } from "./insights.ts";
import { register as traits } from "./traits.ts";
import { register as outputs } from "./outputs.ts";

/** Special routes first: the generic family routes (last) leave a route that is already served alone. */
export const routes: RouteModule[] = [control, openapi, accounts, graph, locations, uploads, related, actions, insights, traits, outputs, resources];
