// /openapi.json: every family's CRUD generated from the contract's schemas, and the entries each family module
// and core route module gives for its own routes.
import { archiveRequest, collectionPath, itemPath, serviceErrorBody } from "pulumi-audience/sdk/contract";
import { errors, input, json, output, ref, type JsonSchema, type OpenApiEntries } from "./openapi.ts";
import type { FamilyRegistry, RegisteredFamily } from "./registry.ts";

/** The generic endpoints of one family (create, list, get, patch, delete, archive, force_update), from the contract. */
function crud(family: RegisteredFamily, schemas: Record<string, JsonSchema>, paths: OpenApiEntries["paths"]): void {
  const title = family.name.replace(/(^|_)([a-z])/g, (_m, _s: string, c: string) => c.toUpperCase());
  schemas[`${title}Create`] = input(family.create);
  schemas[`${title}Patch`] = input(family.patch);
  schemas[title] = output(family.response);
  const one = { description: "OK", ...json(ref(title)) };
  const many = { description: "OK", ...json({ type: "array", items: ref(title) }) };
  const createBody = { required: true, ...json(ref(`${title}Create`)) };
  const patchBody = { required: true, content: { "application/merge-patch+json": { schema: ref(`${title}Patch`) } } };
  const base = collectionPath(family);
  const item = itemPath(family, "{id}");
  const idParam = family.singleton ? [] : [{ name: "id", in: "path", required: true, schema: { type: "string", format: "uuid" } }];
  const collectionOps: Record<string, unknown> = {};
  if (!family.singleton) {
    collectionOps.get = {
      tags: [family.collection], summary: `List ${family.collection}`,
      parameters: [{ name: "ids", in: "query", style: "form", explode: true, schema: { type: "array", maxItems: 100, items: { type: "string", format: "uuid" } } }],
      responses: { 200: many, ...errors },
    };
  }
  if (family.creatable) {
    collectionOps.post = { tags: [family.collection], summary: `Create a ${family.name}`, requestBody: createBody, responses: { 201: one, ...errors } };
  }
  const itemOps: Record<string, unknown> = {
    get: { tags: [family.collection], summary: `Get a ${family.name}`, parameters: idParam, responses: { 200: one, ...errors } },
    patch: { tags: [family.collection], summary: `Update a ${family.name} (merge patch)`, parameters: idParam, requestBody: patchBody, responses: { 200: one, ...errors } },
  };
  if (family.deletable) itemOps.delete = { tags: [family.collection], summary: `Delete a ${family.name}`, parameters: idParam, responses: { 204: { description: "Deleted" }, ...errors } };
  paths[item] = { ...(paths[item] ?? {}), ...itemOps };
  if (!family.singleton) paths[base] = { ...(paths[base] ?? {}), ...collectionOps };
  else if (collectionOps.post) paths[base] = { ...(paths[base] ?? {}), post: collectionOps.post };
  const actions = [...(family.archivable && !family.singleton ? ["archive", "unarchive"] : []), ...(family.forceUpdatable ? ["force_update"] : [])];
  for (const action of actions) {
    const cascade = action === "force_update" ? {} : { requestBody: { required: false, ...json(ref("ArchiveRequest")) } };
    paths[`${item}/${action}`] = { post: { tags: [family.collection], summary: `${action.replace("_", " ")} a ${family.name}`, parameters: idParam, ...cascade, responses: { 204: { description: "Done" }, ...errors } } };
  }
}

/** The whole document: the generic CRUD of every family, then each family's own entries, then `more` (core routes). */
export function openApiDocument(families: FamilyRegistry, more: readonly (() => OpenApiEntries)[] = []): JsonSchema {
  const schemas: Record<string, JsonSchema> = { Error: output(serviceErrorBody), ArchiveRequest: input(archiveRequest) };
  const paths: OpenApiEntries["paths"] = {};
  for (const family of families.all()) if (family.emulator.ownOpenApiPaths !== true) crud(family, schemas, paths);
  const entries = [...families.all().flatMap((f) => (f.emulator.openApi ? [f.emulator.openApi] : [])), ...more].map((make) => make());
  for (const entry of entries) {
    Object.assign(schemas, entry.schemas);
    for (const [path, operations] of Object.entries(entry.paths)) paths[path] = { ...(paths[path] ?? {}), ...operations };
  }
  return {
    openapi: "3.0.3",
    info: { title: "Audience prediction service (emulator)", version: "0.21.0" },
    servers: [{ url: "/v1" }, { url: "/" }],
    security: [{ bearer: [] }],
    paths,
    components: { schemas, securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
  };
}
