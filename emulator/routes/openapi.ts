// /openapi.json, generated from the contract's schemas for every family.
import type { FastifyInstance } from "fastify";
import {
  archiveRequest, collectionPath, ERROR_STATUS, insightsQuery, itemPath, insightsQueryResponse, locationResponse, lookupRequest, lookupResponse, personaPatch, rotateCredentials, serviceErrorBody,
} from "pulumi-audience/sdk/contract";
import { z } from "zod";
import type { EmulatorContext } from "../context.ts";
import { allFamilies } from "../families/index.ts";

type JsonSchema = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  return z.toJSONSchema(schema, { io, unrepresentable: "any", target: "openapi-3.0" }) as JsonSchema;
}

const errorRef = { $ref: "#/components/schemas/Error" };
/** The statuses a family's endpoints may refuse with, each described by the contract's error body. */
const errors = Object.fromEntries([...new Set(Object.values(ERROR_STATUS))].filter((s) => s < 429).map((s) => [String(s), {
  description: "Error", content: { "application/json": { schema: errorRef } },
}]));

export function openApiDocument(): JsonSchema {
  const schemas: Record<string, JsonSchema> = { Error: jsonSchema(serviceErrorBody, "output") };
  const paths: Record<string, Record<string, unknown>> = {};
  for (const family of allFamilies().filter((f) => f.emulator.ownOpenApiPaths !== true)) {
    const title = family.name.replace(/(^|_)([a-z])/g, (_m, _s: string, c: string) => c.toUpperCase());
    schemas[`${title}Create`] = jsonSchema(family.create, "input");
    schemas[`${title}Patch`] = jsonSchema(family.patch, "input");
    schemas[title] = jsonSchema(family.response, "output");
    const one = { description: "OK", content: { "application/json": { schema: { $ref: `#/components/schemas/${title}` } } } };
    const many = { description: "OK", content: { "application/json": { schema: { type: "array", items: { $ref: `#/components/schemas/${title}` } } } } };
    const createBody = { required: true, content: { "application/json": { schema: { $ref: `#/components/schemas/${title}Create` } } } };
    const patchBody = { required: true, content: { "application/merge-patch+json": { schema: { $ref: `#/components/schemas/${title}Patch` } } } };
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
      const cascade = action === "force_update" ? {} : { requestBody: { required: false, content: { "application/json": { schema: { $ref: "#/components/schemas/ArchiveRequest" } } } } };
      paths[`${item}/${action}`] = { post: { tags: [family.collection], summary: `${action.replace("_", " ")} a ${family.name}`, parameters: idParam, ...cascade, responses: { 204: { description: "Done" }, ...errors } } };
    }
  }
  for (const [path, operations] of Object.entries(specialPaths(schemas))) paths[path] = { ...(paths[path] ?? {}), ...operations };
  return {
    openapi: "3.0.3",
    info: { title: "Audience prediction service (emulator)", version: "0.21.0" },
    servers: [{ url: "/v1" }, { url: "/" }],
    security: [{ bearer: [] }],
    paths,
    components: { schemas, securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
  };
}

/** Endpoints beyond a family's CRUD, with the contract's schemas where it has them. */
function specialPaths(schemas: Record<string, JsonSchema>): Record<string, Record<string, unknown>> {
  schemas.RotateCredentials = jsonSchema(rotateCredentials, "input");
  schemas.PersonaPatch = jsonSchema(personaPatch, "input");
  schemas.InsightsQuery = jsonSchema(insightsQuery, "input");
  schemas.InsightsQueryResponse = jsonSchema(insightsQueryResponse, "output");
  schemas.Location = jsonSchema(locationResponse, "output");
  schemas.ArchiveRequest = jsonSchema(archiveRequest, "input");
  schemas.LookupRequest = jsonSchema(lookupRequest, "input");
  schemas.LookupResponse = jsonSchema(lookupResponse, "output");
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
  const json = (schema: unknown) => ({ content: { "application/json": { schema } } });
  const ok = (schema: unknown = { type: "object" }) => ({ 200: { description: "OK", ...json(schema) }, ...errors });
  const id = (name = "id") => ({ name, in: "path", required: true, schema: { type: "string" } });
  const paging = [
    { name: "limit", in: "query", schema: { type: "integer", minimum: 0, maximum: 1000, default: 100 } },
    { name: "offset", in: "query", schema: { type: "integer", minimum: 0, default: 0 } },
  ];
  const paged = {
    200: {
      description: "One page; X-Total-Count gives the total, Link the next and previous pages",
      headers: { "X-Total-Count": { schema: { type: "integer" } }, Link: { schema: { type: "string" } } },
      ...json({ type: "array", items: ref("Location") }),
    },
    ...errors,
  };
  const list = { type: "array", items: { type: "object" } };
  return {
    "/locations": { get: { summary: "List locations (paged)", parameters: paging, responses: paged } },
    "/atlases/{id}/locations": { get: { summary: "List an atlas's locations (paged)", parameters: [id(), ...paging], responses: paged } },
    "/atlases/{id}/logs/ingress": { get: { summary: "An atlas's build logs (paged)", parameters: [id(), ...paging], responses: ok(list) } },
    "/datasets/{id}/logs/ingress": { get: { summary: "A dataset's row-processing logs (paged)", parameters: [id(), ...paging], responses: ok(list) } },
    "/connections/{id}/rotate_credentials": { post: { summary: "Rotate a connection's credentials", parameters: [id()], requestBody: { required: true, ...json(ref("RotateCredentials")) }, responses: ok() } },
    "/connections/{id}/targets": { get: { summary: "Targets delivering through a connection", parameters: [id()], responses: ok(list) } },
    "/persona_sets/{id}/personas/{persona_id}": { patch: { summary: "Rename a persona", parameters: [id(), id("persona_id")], requestBody: { required: true, content: { "application/merge-patch+json": { schema: ref("PersonaPatch") } } }, responses: ok() } },
    "/insights/query": { post: { summary: "One aggregate query (429 QUOTA_EXCEEDED beyond the daily allowance)", requestBody: { required: true, ...json(ref("InsightsQuery")) }, responses: { ...ok(ref("InsightsQueryResponse")), 429: errors["400"] } } },
    "/scopes/{id}/datasets": { get: { summary: "Datasets tied to the scope's population cohorts", parameters: [id()], responses: ok(list) } },
    "/scopes/{id}/payload/cohorts": { get: { summary: "Cohorts in the scope's payload", parameters: [id()], responses: ok(list) } },
    "/scopes/{id}/population/exclusion_address_level_cohorts": { get: { summary: "Cohorts whose addresses are suppressed", parameters: [id()], responses: ok(list) } },
    "/graph": { get: { summary: "Dependency graph edges with live statuses", responses: ok(list) } },
    "/dependencies": { get: { summary: "Dependency edges, optionally of one resource", parameters: [{ name: "id", in: "query", schema: { type: "string" } }], responses: ok(list) } },
    "/accounts": { get: { summary: "The current account and its sub-accounts", responses: ok(list) } },
    "/accounts/{id}": { get: { summary: "An account (`current` is the key's)", parameters: [id()], responses: ok() } },
    "/accounts/{id}/usage": { get: { summary: "Usage metrics", parameters: [id()], responses: ok() } },
    "/accounts/{id}/usage/all": { get: { summary: "Usage rolled up over sub-accounts", parameters: [id()], responses: ok() } },
    "/accounts/{id}/billing": { get: { summary: "Billable usage", parameters: [id()], responses: ok() } },
    "/accounts/{id}/audits/{audit_id}/apply": { post: { summary: "Apply a configuration audit", parameters: [id(), id("audit_id")], responses: { 202: { description: "Accepted", ...json({ type: "object" }) }, ...errors } } },
    "/uploads": { get: { summary: "Every uploaded file of the account, as {subpath, file_size, md5_hash, created_at}", responses: ok(list) } },
    "/uploads/{directory}/{filename}": {
      post: { summary: "Upload a file (CSV, optionally gzip or bzip2)", parameters: [id("directory"), id("filename")], requestBody: { required: true, content: { "text/csv": { schema: { type: "string", format: "binary" } } } }, responses: { 201: { description: "Stored (no body)" }, ...errors } },
      get: { summary: "Download an uploaded file", parameters: [id("directory"), id("filename")], responses: { 200: { description: "The file" }, ...errors } },
      delete: { summary: "Delete an uploaded file", parameters: [id("directory"), id("filename")], responses: { 204: { description: "Deleted (no body)" }, ...errors } },
    },
    "/targets/{id}/lookup": { post: { summary: "Look one person up through a lookup_api target (200, not 201)", parameters: [id()], requestBody: { required: true, ...json(ref("LookupRequest")) }, responses: ok(ref("LookupResponse")) } },
    "/targets/{id}/download.csv": { get: { summary: "A hosted_csv target's delivery (also at its signed output_url)", parameters: [id()], responses: { 200: { description: "CSV, gzip-compressed when options.gzip", content: { "text/csv": { schema: { type: "string" } }, "application/gzip": { schema: { type: "string", format: "binary" } } } }, ...errors } } },
    "/targets/{id}/preview": { post: { summary: "Deliver the first rows of a target", parameters: [id()], responses: ok() } },
    "/targets/{id}/analysis": { get: { summary: "A target's analysis", parameters: [id()], responses: ok() } },
    "/targets/{id}/pdf": { get: { summary: "Redirects to a signed URL of the analysis as PDF", parameters: [id()], responses: { 302: { description: "Signed PDF URL in Location" }, ...errors } } },
    "/scopes/{id}/analysis": { get: { summary: "A scope's population and payload analysis", parameters: [id()], responses: ok() } },
    "/scopes/{id}/analysis/geography": { get: { summary: "A scope's people per state and postcode (postcodes left out past 250)", parameters: [id()], responses: ok() } },
    "/scopes/{id}/efficacy": { get: { summary: "How well a scope's outcomes separate attainers", parameters: [id()], responses: ok() } },
    "/cohorts/{id}/analysis/membership": { get: { summary: "A cohort's membership over time", parameters: [id()], responses: ok() } },
    "/outcomes/{id}/analysis": { get: { summary: "An outcome's model performance, feature importance, bias and strategies", parameters: [id()], responses: ok() } },
    "/recommenders/{id}/analysis": { get: { summary: "People and mean uncalibrated probability per rank", parameters: [id()], responses: ok() } },
    "/persona_sets/{id}/analysis/dimensions": { get: { summary: "Personas and their distributions", parameters: [id()], responses: ok() } },
    "/streams/{id}/analysis": { get: { summary: "A stream's events (by id or name)", parameters: [id()], responses: ok() } },
    "/traits/{id}/analysis/dimensions": { get: { summary: "A trait's value distribution", parameters: [id()], responses: ok() } },
    "/traits.csv": { get: { summary: "Every trait, as CSV", responses: { 200: { description: "CSV", content: { "text/csv": { schema: { type: "string" } } } }, ...errors } } },
  };
}

export function register(app: FastifyInstance, _ctx: EmulatorContext): void {
  let document: JsonSchema | undefined;
  app.get("/openapi.json", { config: { public: true } }, (_request, reply) => reply.send((document ??= openApiDocument())));
}
