// GET /openapi.json, made on first request from the families handed in and the core routes' entries.
import type { RouteModule } from "../context.ts";
import type { JsonSchema, OpenApiEntries } from "../openapi.ts";
import { openApiDocument } from "../openapi-document.ts";
import type { FamilyRegistry } from "../registry.ts";

export function openApiRoute(families: FamilyRegistry, core: readonly (() => OpenApiEntries)[]): RouteModule {
  return (app) => {
    let document: JsonSchema | undefined;
    app.get("/openapi.json", { config: { public: true } }, (_request, reply) => reply.send((document ??= openApiDocument(families, core))));
  };
}
