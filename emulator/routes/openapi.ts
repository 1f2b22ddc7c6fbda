// /openapi.json, generated from the contract's schemas for every family.
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { EmulatorContext } from "../context.ts";
import { allFamilies } from "../state.ts";

type JsonSchema = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  try {
    return z.toJSONSchema(schema, { io, unrepresentable: "any", target: "openapi-3.0" }) as JsonSchema;
  } catch {
    return {};
  }
}

const errorRef = { $ref: "#/components/schemas/Error" };
const errors = Object.fromEntries(["400", "401", "403", "404", "409"].map((s) => [s, {
  description: "Error", content: { "application/json": { schema: errorRef } },
}]));

export function openApiDocument(): JsonSchema {
  const schemas: Record<string, JsonSchema> = {
    Error: {
      type: "object", required: ["error", "id", "note"],
      properties: {
        error: { type: "string" }, id: { type: "string", format: "uuid" }, note: { type: "string" },
        validationErrors: { type: "array", items: { type: "object", properties: {
          path: { type: "string" }, message: { type: "string" }, context: { type: "object", properties: { errorType: { type: "string" } } },
        } } },
      },
    },
  };
  const paths: Record<string, Record<string, unknown>> = {};
  for (const family of allFamilies()) {
    const title = family.name.replace(/(^|_)([a-z])/g, (_m, _s: string, c: string) => c.toUpperCase());
    schemas[`${title}Create`] = jsonSchema(family.create, "input");
    schemas[`${title}Patch`] = jsonSchema(family.patch, "input");
    schemas[title] = jsonSchema(family.response, "output");
    const one = { description: "OK", content: { "application/json": { schema: { $ref: `#/components/schemas/${title}` } } } };
    const many = { description: "OK", content: { "application/json": { schema: { type: "array", items: { $ref: `#/components/schemas/${title}` } } } } };
    const createBody = { required: true, content: { "application/json": { schema: { $ref: `#/components/schemas/${title}Create` } } } };
    const patchBody = { required: true, content: { "application/merge-patch+json": { schema: { $ref: `#/components/schemas/${title}Patch` } } } };
    const base = `/${family.path}`;
    const item = family.singleton ? base : `${base}/{id}`;
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
    if (family.archivable) {
      for (const action of family.singleton ? ["force_update"] : ["archive", "unarchive", "force_update"]) {
        paths[`${item}/${action}`] = { post: { tags: [family.collection], summary: `${action.replace("_", " ")} a ${family.name}`, parameters: idParam, responses: { 204: { description: "Done" }, ...errors } } };
      }
    }
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

export function register(app: FastifyInstance, _ctx: EmulatorContext): void {
  let document: JsonSchema | undefined;
  app.get("/openapi.json", { config: { public: true } }, (_request, reply) => reply.send((document ??= openApiDocument())));
}
