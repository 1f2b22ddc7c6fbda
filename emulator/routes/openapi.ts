// GET /openapi.json, made on first request from the families handed in and the core routes' entries.
import type { RouteModule } from "../context.ts";
import { openApiDocument, type JsonSchema, type OpenApiEntries } from "../openapi.ts";

export function openApiRoute(core: readonly (() => OpenApiEntries)[]): RouteModule {
  return (app, ctx) => {
    let document: JsonSchema | undefined;
    app.get("/openapi.json", { config: { public: true } }, (_request, reply) => reply.send((document ??= openApiDocument(ctx.state.families, core))));
  };
}
