// What /openapi.json says, in parts: the entries a family module or core route module gives for its own routes,
// and the helpers they write them with (openapi-document.ts puts the whole document together).
import { ERROR_STATUS } from "pulumi-audience/sdk/contract";
import { z } from "zod";

export type JsonSchema = Record<string, unknown>;

/** What /openapi.json says of some routes: their paths, and the schemas those name (`ref(name)`). */
export interface OpenApiEntries {
  paths: Record<string, Record<string, unknown>>;
  schemas?: Record<string, JsonSchema>;
}

function jsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  return z.toJSONSchema(schema, { io, unrepresentable: "any", target: "openapi-3.0" }) as JsonSchema;
}

/** A request body's schema, from the contract's. */
export const input = (schema: z.ZodType): JsonSchema => jsonSchema(schema, "input");
/** An answer's schema, from the contract's. */
export const output = (schema: z.ZodType): JsonSchema => jsonSchema(schema, "output");

const errorRef = { $ref: "#/components/schemas/Error" };
/** The statuses a family's endpoints may refuse with, each described by the contract's error body. */
export const errors = Object.fromEntries([...new Set(Object.values(ERROR_STATUS))].filter((s) => s < 429).map((s) => [String(s), {
  description: "Error", content: { "application/json": { schema: errorRef } },
}]));

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const json = (schema: unknown) => ({ content: { "application/json": { schema } } });
/** A 200 answer with `schema` (any object by default), and the refusals. */
export const ok = (schema: unknown = { type: "object" }) => ({ 200: { description: "OK", ...json(schema) }, ...errors });
/** A path parameter. */
export const param = (name = "id") => ({ name, in: "path", required: true, schema: { type: "string" } });
/** An answer that is a list of objects. */
export const list = { type: "array", items: { type: "object" } };
export const paging = [
  { name: "limit", in: "query", schema: { type: "integer", minimum: 0, maximum: 1000, default: 100 } },
  { name: "offset", in: "query", schema: { type: "integer", minimum: 0, default: 0 } },
];
/** The answer of a paged listing of `items`. */
export const paged = (items: unknown) => ({
  200: {
    description: "One page; X-Total-Count gives the total, Link the next and previous pages",
    headers: { "X-Total-Count": { schema: { type: "integer" } }, Link: { schema: { type: "string" } } },
    ...json({ type: "array", items }),
  },
  ...errors,
});
