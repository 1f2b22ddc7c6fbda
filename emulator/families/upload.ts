// Uploads: raw file bytes POSTed to /uploads/{directory}/{filename}, listed, downloaded and deleted; read by
// hosted_csv datasets and atlases as they build. Files, not JSON documents: served and described by the routes here.
import { createHash } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { checkUpload, uploadSubpath, type UploadResponse } from "pulumi-audience/sdk/contract";
import type { EmulatorContext } from "../context.ts";
import { badRequest, notFound, validationFailed } from "../errors.ts";
import type { EmulatorFamily } from "../family.ts";
import { uploadKey, uploadsIn, type StoredUpload } from "../ingest.ts";
import { errors, list, ok, param } from "../openapi.ts";
import { now } from "../state.ts";

const UPLOAD_LIMIT = 32 * 1024 * 1024;
const FILE_TYPES = ["text/csv", "application/octet-stream", "application/gzip", "application/x-gzip", "application/x-bzip2", "text/plain"];

type Params = { directory: string; filename: string };

function routes(app: FastifyInstance, ctx: EmulatorContext): void {
  const { state } = ctx;
  // The live service's listing shape.
  const view = (u: StoredUpload): UploadResponse => ({
    subpath: uploadSubpath(u.directory, u.filename), file_size: u.size, md5_hash: u.md5_hash, created_at: u.created_at,
  });
  const existing = (request: { params: Params }, accountId: string): StoredUpload => {
    const found = state.store.get<StoredUpload>("upload", uploadKey(accountId, request.params.directory, request.params.filename));
    if (!found) throw notFound(`No upload ${uploadSubpath(request.params.directory, request.params.filename)} exists`);
    return found;
  };

  app.get("/uploads", (request, reply) => reply.send(uploadsIn(state, ctx.account(request).id).map(view)));

  app.get<{ Params: Params }>("/uploads/:directory/:filename", (request, reply) => {
    const found = existing(request, ctx.account(request).id);
    return reply.type(found.filename.endsWith(".csv") ? "text/csv" : "application/octet-stream").send(Buffer.from(found.data, "base64"));
  });

  app.delete<{ Params: Params }>("/uploads/:directory/:filename", (request, reply) => {
    const accountId = ctx.account(request).id;
    const found = existing(request, accountId);
    state.store.transaction(() => state.store.delete("upload", uploadKey(accountId, found.directory, found.filename)));
    return reply.code(204).send();
  });

  // File bodies are bytes, parsed only inside this plugin.
  void app.register(async (files) => {
    files.addContentTypeParser(FILE_TYPES, { parseAs: "buffer", bodyLimit: UPLOAD_LIMIT }, (_request, body, done) => done(null, body));
    files.post<{ Params: Params }>("/uploads/:directory/:filename", { bodyLimit: UPLOAD_LIMIT }, (request, reply) => {
      const { directory, filename } = request.params;
      const errors = checkUpload(directory, filename);
      if (errors.length > 0) throw validationFailed(errors);
      if (!Buffer.isBuffer(request.body)) throw badRequest(`Send the file's bytes with Content-Type ${FILE_TYPES.slice(0, 2).join(" or ")}`);
      const accountId = ctx.account(request).id;
      const upload: StoredUpload = {
        account_id: accountId, directory, filename, size: request.body.length, created_at: now(),
        md5_hash: createHash("md5").update(request.body).digest("hex"), data: request.body.toString("base64"),
      };
      state.store.transaction(() => state.store.set("upload", uploadKey(accountId, directory, filename), upload));
      // The live service answers an upload with no body.
      return reply.code(201).send();
    });
  });
}

export const upload: EmulatorFamily = {
  collection: "uploads",
  ownRoutesOnly: true,
  ownOpenApiPaths: true,
  routes,
  bodyLimit: UPLOAD_LIMIT,
  openApi: () => ({
    paths: {
      "/uploads": { get: { summary: "Every uploaded file of the account, as {subpath, file_size, md5_hash, created_at}", responses: ok(list) } },
      "/uploads/{directory}/{filename}": {
        post: { summary: "Upload a file (CSV, optionally gzip or bzip2)", parameters: [param("directory"), param("filename")], requestBody: { required: true, content: { "text/csv": { schema: { type: "string", format: "binary" } } } }, responses: { 201: { description: "Stored (no body)" }, ...errors } },
        get: { summary: "Download an uploaded file", parameters: [param("directory"), param("filename")], responses: { 200: { description: "The file" }, ...errors } },
        delete: { summary: "Delete an uploaded file", parameters: [param("directory"), param("filename")], responses: { 204: { description: "Deleted (no body)" }, ...errors } },
      },
    },
  }),
};
