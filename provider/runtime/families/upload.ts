// Uploads carry a file's bytes, not a JSON body, and have no id of their own (`directory/filename`, the `subpath`
// the service lists them under), so they create, read, update, diff and delete their own way, through the SDK
// client's upload calls. What the service lists (`md5_hash`) is what a change is measured against.
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { NotFoundError } from "pulumi-audience/sdk/client";
import { checkUpload, jsonEqual, splitUploadSubpath, uploadSubpath } from "pulumi-audience/sdk/contract";
import { z } from "zod";
import { UNKNOWN } from "../../protocol/markers.ts";
import type { Calls, ExtraInputs, Failure, FamilyExtras, Props } from "./family.ts";

const uploadInputs = z.strictObject({
  directory: z.string({ error: "is required: the upload directory datasets and atlases read from" })
    .describe("Upload directory, as datasets' and atlases' `options.uploadDirectory` name it."),
  filename: z.string({ error: "is required: .csv, .csv.gz or .csv.bz2" }).describe("File name: `.csv`, `.csv.gz` or `.csv.bz2`."),
  content: z.string().optional().describe("The file's text; or give `source`."),
  source: z.string().min(1).optional()
    .describe("Path of a local file to upload, read where the provider runs; a change of its bytes re-uploads it."),
}).check((ctx) => {
  if ((ctx.value.content === undefined) === (ctx.value.source === undefined)) {
    ctx.issues.push({ code: "custom", input: ctx.value, path: ["content"], message: "give exactly one of content or source" });
  }
});
export type UploadInputs = z.infer<typeof uploadInputs>;

async function bytesOf(inputs: UploadInputs): Promise<Uint8Array> {
  return inputs.source !== undefined ? readFile(inputs.source) : Buffer.from(inputs.content ?? "", "utf8");
}

function md5(bytes: Uint8Array): string {
  return createHash("md5").update(bytes).digest("hex");
}

/** The MD5 the declared inputs would upload (reads `source`), to compare with the service's `md5_hash`. */
async function declaredDigest(extras: Props): Promise<string> {
  return md5(await bytesOf(uploadInputs.parse(extras)));
}

/** The file as the service lists it, or undefined when it is not there. */
async function listed({ client }: Calls, subpath: string): Promise<Props | undefined> {
  return (await client.listUploads()).find((u) => u.subpath === subpath);
}

/** Uploads the declared bytes and answers the file as the service then lists it (an upload answers no body). */
async function send(calls: Calls, extras: Props): Promise<Props> {
  const inputs = uploadInputs.parse(extras);
  await calls.client.upload(inputs.directory, inputs.filename, await bytesOf(inputs));
  const subpath = uploadSubpath(inputs.directory, inputs.filename);
  const answer = await listed(calls, subpath);
  if (answer === undefined) throw new Error(`upload ${subpath} was accepted but the service does not list it`);
  return answer;
}

/** How far behind ours the service's clock may run when it stamps `created_at`. */
const CLOCK_SLACK_MS = 5_000;

/**
 * Whether the file at the path is what an interrupted attempt of this create uploaded: the declared bytes, stamped
 * since that attempt began.
 */
async function madeByAttempt(file: Props, extras: Props, startedAt: number | undefined): Promise<boolean> {
  if (startedAt === undefined || file.md5_hash !== await declaredDigest(extras)) return false;
  return Date.parse(String(file.created_at ?? "")) >= startedAt - CLOCK_SLACK_MS;
}

/** Why a create refuses a path that already holds a file, and the ways on. */
function pathTaken(subpath: string, file: Props): string {
  const held = [typeof file.file_size === "number" ? `${file.file_size} bytes` : undefined, typeof file.md5_hash === "string" ? `md5 ${file.md5_hash}` : undefined,
    typeof file.created_at === "string" ? `uploaded ${file.created_at}` : undefined].filter((part) => part !== undefined).join(", ");
  return `Upload ${subpath}: the account already holds a file at this path (${held}), uploaded by hand or managed by another resource; `
    + "uploading would overwrite it, and the other resource's delete would then remove this one's file. "
    + "A resource renamed in the program: give it `aliases` with its old name (deleting the file does not help: the old resource's delete would remove the new one). "
    + `A file uploaded outside any program: take it over with \`pulumi import audience:index:Upload <name> ${subpath}\` (pulumi-audience/native), or delete it from the account and run again`;
}

/** Whether the declared file is the one the service holds: same inputs and bytes with the listed MD5. */
async function unchanged({ extras, recordedExtras, recorded }: ExtraInputs): Promise<boolean> {
  return jsonEqual(recordedExtras, extras) && recorded.md5Hash === await declaredDigest(extras);
}

export const uploads: FamilyExtras = {
  extraInputs: ["directory", "filename", "content", "source"],
  extraInputSchema: uploadInputs,

  check(extras) {
    const parsed = uploadInputs.safeParse(extras);
    const failures: Failure[] = parsed.success ? [] : parsed.error.issues.map((i) => ({ property: i.path.join(".") || "content", reason: i.message }));
    if (typeof extras.directory === "string" && typeof extras.filename === "string") {
      for (const e of checkUpload(extras.directory, extras.filename)) failures.push({ property: e.path, reason: `${e.path} ${e.message}` });
    }
    return failures;
  },

  async accountCheck(calls, { extras }, recorded, warn) {
    // Only a new resource takes its path: a recorded one (renamed with aliases, replaced) holds its own.
    const parsed = uploadInputs.safeParse(extras);
    if (recorded() !== undefined || Object.values(extras).includes(UNKNOWN) || !parsed.success) return [];
    const subpath = uploadSubpath(parsed.data.directory, parsed.data.filename);
    const there = await listed(calls, subpath);
    if (there === undefined) return [];
    // The declared bytes may be what an interrupted attempt of this create uploaded, which only the create can tell.
    if (there.md5_hash === await declaredDigest(extras).catch(() => undefined)) {
      warn(`${pathTaken(subpath, there)}. The file holds the declared bytes: the up takes it only if an interrupted run of this very create uploaded it, and refuses it otherwise`);
      return [];
    }
    return [{ path: "filename", message: pathTaken(subpath, there), context: { errorType: "conflict" } }];
  },

  async create(calls, extras, { startedAt }) {
    const inputs = uploadInputs.parse(extras);
    const subpath = uploadSubpath(inputs.directory, inputs.filename);
    // The path is the file's one name: a file already there is someone else's, unless an interrupted attempt of
    // this very create put it there.
    const there = await listed(calls, subpath);
    if (there === undefined) return { id: subpath, response: await send(calls, extras) };
    if (!await madeByAttempt(there, extras, startedAt)) throw new Error(pathTaken(subpath, there));
    return { id: subpath, response: there };
  },

  find: (calls, id) => listed(calls, id),

  readExtras: (id) => splitUploadSubpath(id),

  async update(calls, _id, inputs) {
    return (await unchanged(inputs)) ? undefined : send(calls, inputs.extras);
  },

  async diff({ extras, recordedExtras, recorded }) {
    const replaces = ["directory", "filename"].filter((key) => recordedExtras[key] !== extras[key]);
    // Bytes that are not what the service holds: a local source edited in place, or a file replaced by hand.
    const known = !Object.values(extras).includes(UNKNOWN);
    const changed = known && recorded.md5Hash !== await declaredDigest(extras).catch(() => undefined);
    // The path is the file's one name: a replacement that may write it again (`replaceOnChanges`, a forced
    // replace, a part still unknown) deletes the old file first, else the old resource's delete removes the new one.
    const samePath = replaces.every((key) => extras[key] === UNKNOWN);
    return { changed: changed ? ["md5Hash"] : [], replaces, deleteBeforeReplace: samePath };
  },

  digest: {
    key: "md5Hash",
    declared: declaredDigest,
    found: (response) => (typeof response.md5_hash === "string" ? response.md5_hash : undefined),
  },

  async delete({ client }, id) {
    const { directory, filename } = splitUploadSubpath(id);
    // A file already gone (deleted by hand) counts as deleted, as every family's resource does.
    await client.deleteUpload(directory, filename).catch((error: unknown) => {
      if (!(error instanceof NotFoundError)) throw error;
    });
  },
};
