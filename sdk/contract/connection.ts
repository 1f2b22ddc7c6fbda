// Connection: credentials and location of a warehouse, bucket or database the service reads from or writes to.
import { z } from "zod";
import { defineFamily } from "./family.ts";
import { expected, issue, name } from "./fields.ts";
import type { MemberDocs } from "./docs.ts";

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

const connectionAnswers = {
  directionality: z.enum(["bidirectional", "source_only", "destination_only"]).nullish(),
  managed: z.boolean().nullish(),
};

/** Body of POST /connections/{id}/rotate_credentials. */
export const rotateCredentials = z.strictObject({ type: text });

export type ConnectionOptions = z.input<typeof connectionOptions>;

/** Field docs of connections, by member path (see docs.ts). */
export const connectionDocs = {
  options: "What is connected, chosen by `type`: `snowflake`, `bigquery`, `s3_csv`, `gcs_csv`, `postgres`, `redshift`, `databricks`, or the hosted `hosted_csv` and `lookup_api`. Credentials are secret and answered as `<secret>`.",
  "options.type": "The connection kind.",
  "options.database": "The database.",
  "options.user": "The user connecting.",
  "options.warehouse": "`snowflake`: the warehouse.",
  "options.account_name": "`snowflake`: the account name.",
  "options.role": "`snowflake`: the role used.",
  "options.schema": "The schema.",
  "options.password": "The password (secret).",
  "options.private_key": "`snowflake`: key-pair authentication, a PEM private key (secret).",
  "options.project_id": "`bigquery`, `gcs_csv`: the cloud project.",
  "options.dataset_name": "`bigquery`: the dataset.",
  "options.region": "`bigquery`: the region.",
  "options.bucket_name": "`s3_csv`, `gcs_csv`: the bucket.",
  "options.aws_region": "`s3_csv`: the bucket's region.",
  "options.host": "The server's host name.",
  "options.port": "The server's port (1 to 65535).",
  "options.http_path": "`databricks`: the HTTP path of the SQL warehouse.",
  "options.catalog": "`databricks`: the catalog.",
  "options.token": "`databricks`: a personal access token (secret); required unless `clientId` and `clientSecret` are given.",
  "options.client_id": "`databricks`: OAuth machine-to-machine client id.",
  "options.client_secret": "`databricks`: OAuth machine-to-machine client secret (secret).",
  directionality: "Whether the connection is read from, written to, or both.",
  managed: "Whether the service manages this resource; managed resources are read-only.",
} as const satisfies MemberDocs;

export const connection = defineFamily({
  name: "connection",
  className: "Connection",
  summary: "Credentials and location of a warehouse, bucket or database. Passwords, tokens and keys are secret inputs and stay secret in outputs. Changing `options.type` replaces it.",
  collection: "connections",
  shape,
  answers: connectionAnswers,
  docs: connectionDocs,
  secrets: CONNECTION_SECRETS,
  createOnly: ["options.type"],
  builds: false,
});
