// Reading uploaded CSV files, as hosted_csv datasets and atlases do when they build, and the ingress logs
// those builds write and their families serve.
import { gunzipSync } from "node:zlib";
import { parse } from "csv-parse/sync";
import type { FastifyInstance } from "fastify";
import type { EmulatorContext } from "./context.ts";
import { notFound } from "./errors.ts";
import { list, ok, paging, param, type OpenApiEntries } from "./openapi.ts";
import { sendPage } from "./routes/paging.ts";
import type { Doc, ServiceState, StoredResource } from "./state.ts";

export interface StoredUpload {
  account_id: string;
  directory: string;
  filename: string;
  size: number;
  created_at: string;
  /** Hex MD5 of the bytes: what the service lists as `md5_hash`. */
  md5_hash: string;
  /** File bytes, base64. */
  data: string;
}

export const uploadKey = (accountId: string, directory: string, filename: string) => `${accountId}/${directory}/${filename}`;

export function uploadsIn(state: ServiceState, accountId: string, directory?: string): StoredUpload[] {
  return state.store.values<StoredUpload>("upload", `${accountId}/${directory === undefined ? "" : `${directory}/`}`)
    .sort((a, b) => a.created_at.localeCompare(b.created_at));
}

export interface Table {
  columns: string[];
  rows: Record<string, string>[];
  /** Rows the parser could not read. */
  malformed: number;
}

/** Rows of every CSV file of an upload directory (gzip is decompressed; bzip2 is not read by the emulator). */
export function readDirectory(state: ServiceState, accountId: string, directory: string, options: { delimiter?: string; header_row?: boolean } = {}): Table {
  const table: Table = { columns: [], rows: [], malformed: 0 };
  for (const upload of uploadsIn(state, accountId, directory)) {
    let bytes = Buffer.from(upload.data, "base64");
    const name = upload.filename.toLowerCase();
    if (name.endsWith(".bz2")) throw new Error(`${upload.filename}: bzip2 files are not read by the emulator; upload .csv or .csv.gz`);
    if (name.endsWith(".gz")) bytes = gunzipSync(bytes);
    const records = parse(bytes, {
      delimiter: options.delimiter ?? ",", bom: true, skip_empty_lines: true, relax_column_count: true, trim: true,
    }) as string[][];
    const header = options.header_row === false ? (records[0] ?? []).map((_c, i) => `column_${i + 1}`) : records.shift() ?? [];
    for (const c of header) if (!table.columns.includes(c)) table.columns.push(c);
    for (const record of records) {
      if (record.length !== header.length) {
        table.malformed++;
        continue;
      }
      table.rows.push(Object.fromEntries(header.map((c, i) => [c, record[i] ?? ""])));
    }
  }
  return table;
}

/** The type a column's values read as: long, double, boolean, date or string. */
export function detectType(values: readonly string[]): string {
  const present = values.filter((v) => v !== "");
  if (present.length === 0) return "unknown";
  if (present.every((v) => /^-?\d+$/.test(v))) return "long";
  if (present.every((v) => /^-?\d*\.?\d+(e-?\d+)?$/i.test(v))) return "double";
  if (present.every((v) => /^(true|false)$/i.test(v))) return "boolean";
  if (present.every((v) => /^\d{4}-\d{2}-\d{2}/.test(v))) return "date";
  if (present.every((v) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v))) return "uuid";
  return "string";
}

export function detectedColumns(table: Table): { name: string; type: string }[] {
  return table.columns.map((name) => ({ name, type: detectType(table.rows.slice(0, 1000).map((r) => r[name] ?? "")) }));
}

/** A cell of a row, undefined when the column is not mapped or the cell is empty. */
export function text(row: Record<string, string>, column: unknown): string | undefined {
  if (typeof column !== "string") return undefined;
  const value = row[column];
  return value === undefined || value === "" ? undefined : value;
}

/** The source table of a hosted_csv resource (dataset, atlas); undefined for other sources. */
export function sourceTable(state: ServiceState, resource: StoredResource): Table | undefined {
  const options = resource.doc.options as Doc | undefined;
  if (options?.type !== "hosted_csv") return undefined;
  return readDirectory(state, resource.account_id, String(options.upload_directory), {
    ...(typeof options.delimiter === "string" ? { delimiter: options.delimiter } : {}),
    ...(typeof options.header_row === "boolean" ? { header_row: options.header_row } : {}),
  });
}

/** Records what a build read (GET /{collection}/{id}/logs/ingress). */
export function writeLog(state: ServiceState, resource: StoredResource, fields: Doc): void {
  state.insert(resource.account_id, "ingress_logs", {
    source_type: resource.collection, source_id: resource.doc.id, name: `${resource.collection} ${String(resource.doc.id)} ingress`,
    status: "ready", ...fields,
  });
}

type LogParams = { id: string; log_id: string };

/** The build logs of a family that ingests (GET /{collection}/{id}/logs/ingress, paged, and one log by id). */
export function ingressLogRoutes(app: FastifyInstance, ctx: EmulatorContext, collection: string): void {
  const { state } = ctx;
  const logs = (accountId: string, id: string) => state.resources(accountId, "ingress_logs").filter((l) => l.doc.source_id === id).reverse();
  const summary = (doc: Doc) => Object.fromEntries(Object.entries(doc).filter(([k]) => k !== "unplaced_rows"));
  app.get<{ Params: LogParams }>(`/${collection}/:id/logs/ingress`, { config: { paged: true } }, (request, reply) => {
    const owner = ctx.owned(request, collection, request.params.id);
    return sendPage(request, reply, logs(owner.account_id, request.params.id).map((l) => summary(l.doc)));
  });
  app.get<{ Params: LogParams }>(`/${collection}/:id/logs/ingress/:log_id`, (request, reply) => {
    const owner = ctx.owned(request, collection, request.params.id);
    const found = logs(owner.account_id, request.params.id).find((l) => l.doc.id === request.params.log_id);
    if (!found) throw notFound(`No ingress log ${request.params.log_id} exists for ${collection} ${request.params.id}`);
    return reply.send(summary(found.doc));
  });
}

/** What /openapi.json says of a family's ingress logs. */
export function ingressLogPaths(collection: string, summary: string): OpenApiEntries["paths"] {
  return { [`/${collection}/{id}/logs/ingress`]: { get: { summary, parameters: [param(), ...paging], responses: ok(list) } } };
}
