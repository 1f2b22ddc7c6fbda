// Uploads carry a file's bytes, not a JSON body, and have no id of their own (`directory/filename`), so they do
// create, read, update and diff their own way, through the SDK client's upload calls. The service offers no
// DELETE: destroy forgets the file.
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { checkUpload, isObject, jsonEqual } from "pulumi-audience/sdk/contract";
import { z } from "zod";
import { UNKNOWN } from "../markers.ts";
import type { Calls, ExtraInputs, Failure, FamilyExtras, Props } from "./family.ts";

export const uploadInputs = z.strictObject({
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

function uploadId(inputs: Pick<UploadInputs, "directory" | "filename">): string {
  return `${inputs.directory}/${inputs.filename}`;
}

async function bytesOf(inputs: UploadInputs): Promise<Uint8Array> {
  return inputs.source !== undefined ? readFile(inputs.source) : Buffer.from(inputs.content ?? "", "utf8");
}

function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** The digest the declared inputs would upload (reads `source`), to compare with the recorded one. */
async function declaredDigest(extras: Props): Promise<string> {
  return sha256(await bytesOf(uploadInputs.parse(extras)));
}

async function send({ client }: Calls, extras: Props): Promise<Props> {
  const inputs = uploadInputs.parse(extras);
  const bytes = await bytesOf(inputs);
  const answer = await client.upload(inputs.directory, inputs.filename, bytes);
  return { ...(isObject(answer) ? answer : {}), sha256: sha256(bytes) };
}

/** Whether the declared file is the one recorded: same inputs and, for a local source, the same bytes. */
async function unchanged({ extras, recordedExtras, recorded }: ExtraInputs): Promise<boolean> {
  if (!jsonEqual(recordedExtras, extras)) return false;
  return typeof extras.source !== "string" || recorded.sha256 === await declaredDigest(extras);
}

export const uploads: FamilyExtras = {
  extraInputs: ["directory", "filename", "content", "source"],
  extraInputSchema: uploadInputs,
  extraOutputNames: ["sha256"],

  check(extras) {
    const parsed = uploadInputs.safeParse(extras);
    const failures: Failure[] = parsed.success ? [] : parsed.error.issues.map((i) => ({ property: i.path.join(".") || "content", reason: i.message }));
    if (typeof extras.directory === "string" && typeof extras.filename === "string") {
      for (const e of checkUpload(extras.directory, extras.filename)) failures.push({ property: e.path, reason: `${e.path} ${e.message}` });
    }
    return failures;
  },

  async create(calls, extras) {
    return { id: uploadId(uploadInputs.parse(extras)), response: await send(calls, extras) };
  },

  async find({ client }, id, recorded) {
    const listed = (await client.listUploads()).find((u) => uploadId(u) === id);
    // The service lists no digest: the recorded one stands for the bytes sent.
    return listed === undefined ? undefined : { ...listed, sha256: recorded.sha256 };
  },

  async update(calls, _id, inputs) {
    return (await unchanged(inputs)) ? undefined : send(calls, inputs.extras);
  },

  async diff({ extras, recordedExtras, recorded }) {
    const replaces = ["directory", "filename"].filter((key) => recordedExtras[key] !== extras[key]);
    // A local source file edited in place: its bytes no longer match what was uploaded.
    const known = !Object.values(extras).includes(UNKNOWN);
    const edited = typeof extras.source === "string" && known && recorded.sha256 !== await declaredDigest(extras).catch(() => undefined);
    return { changed: edited ? ["source"] : [], replaces };
  },
};
