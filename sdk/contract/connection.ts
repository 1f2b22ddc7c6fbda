// Connection: credentials and location of a warehouse, bucket or database the service reads from or writes to.
import { z } from "zod";
import { body, expected, defineFamily, issue, name, patchOf, responseOf, type MergePatchOf } from "./common.ts";

const text = z.string().min(1);
const secret = z.string().min(1);

/** Options keyed by type; names beyond the service client's examples are not shown by the spec. */
export const connectionOptions = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("hosted_csv") }),
  z.strictObject({ type: z.literal("lookup_api") }),
  z.strictObject({
    type: z.literal("snowflake"),
    database: text, user: text, warehouse: text,
    account_name: text.optional(), role: text.optional(), schema: text.optional(),
    password: secret.optional(),
    /** Key-pair authentication, PEM. */
    private_key: secret.optional(),
  }),
  z.strictObject({ type: z.literal("bigquery"), project_id: text, dataset_name: text, region: text.optional() }),
  z.strictObject({ type: z.literal("s3_csv"), bucket_name: text, aws_region: text }),
  z.strictObject({ type: z.literal("gcs_csv"), bucket_name: text, project_id: text.optional() }),
  z.strictObject({
    type: z.literal("postgres"),
    host: text, port: z.number().int().min(1).max(65535, { error: "must be a port from 1 to 65535" }),
    database: text, schema: text, user: text, password: secret,
  }),
  z.strictObject({
    type: z.literal("redshift"),
    host: text, port: z.number().int().min(1).max(65535).optional(), database: text, schema: text, user: text, password: secret,
  }),
  z.strictObject({
    type: z.literal("databricks"),
    host: text, http_path: text, catalog: text, schema: text,
    /** Personal access token, or OAuth machine-to-machine client_id + client_secret. */
    token: secret.optional(),
    client_id: text.optional(),
    client_secret: secret.optional(),
  }).check((ctx) => {
    const { token, client_id: cid, client_secret: cs } = ctx.value;
    if (token === undefined && (cid === undefined || cs === undefined)) {
      issue(ctx, ["token"], "is required unless client_id and client_secret are given");
    }
  }),
], { error: expected("one of hosted_csv, lookup_api, snowflake, bigquery, s3_csv, gcs_csv, postgres, redshift, databricks") });

export const CONNECTION_SECRETS = ["options.password", "options.private_key", "options.token", "options.client_secret"] as const;

const shape = { name, options: connectionOptions };

export const connectionCreate = body(shape);
export const connectionPatch = patchOf(shape);
export const connectionResponse = responseOf(shape, {
  directionality: z.enum(["bidirectional", "source_only", "destination_only"]).nullish(),
  managed: z.boolean().nullish(),
});

/** Body of POST /connections/{id}/rotate_credentials. */
export const rotateCredentials = z.strictObject({ type: text });

export type ConnectionCreate = z.input<typeof connectionCreate>;
export type ConnectionPatch = MergePatchOf<ConnectionCreate>;
export type ConnectionResponse = z.output<typeof connectionResponse>;
export type ConnectionOptions = z.input<typeof connectionOptions>;

export const connection = defineFamily({
  name: "connection",
  className: "Connection",
  collection: "connections",
  create: connectionCreate,
  patch: connectionPatch,
  response: connectionResponse,
  secrets: CONNECTION_SECRETS,
  createOnly: ["options.type"],
  builds: false,
});
