// Uploads carry a file's bytes, not a JSON body, and have no id of their own (`directory/filename`), so they get
// their own small lifecycle instead of the generic one. The service offers no DELETE: destroy forgets the file.
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { checkUpload } from "pulumi-audience/sdk/contract";
import { z } from "zod";
import type { Calls } from "./family.ts";

type Props = Record<string, unknown>;

export const uploadInputs = z.strictObject({
  directory: z.string({ error: "is required: the upload directory datasets and atlases read from" }),
  filename: z.string({ error: "is required: .csv, .csv.gz or .csv.bz2" }),
  /** The file's text. */
  content: z.string().optional(),
  /** A local file to send instead of `content`, read where the provider runs. */
  source: z.string().min(1).optional(),
}).check((ctx) => {
  if ((ctx.value.content === undefined) === (ctx.value.source === undefined)) {
    ctx.issues.push({ code: "custom", input: ctx.value, path: ["content"], message: "give exactly one of content or source" });
  }
});
export type UploadInputs = z.infer<typeof uploadInputs>;

export interface FileCalls extends Calls {
  /** POSTs raw bytes; answers the parsed JSON body. */
  sendFile(path: string, bytes: Uint8Array, contentType: string): Promise<unknown>;
}

export function uploadId(inputs: Pick<UploadInputs, "directory" | "filename">): string {
  return `${inputs.directory}/${inputs.filename}`;
}

async function bytesOf(inputs: UploadInputs): Promise<Uint8Array> {
  return inputs.source !== undefined ? readFile(inputs.source) : Buffer.from(inputs.content ?? "", "utf8");
}

export function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** Failures of the declared inputs, by member. */
export function checkUploadInputs(config: Props): { property: string; reason: string }[] {
  const parsed = uploadInputs.safeParse(config);
  const failures = parsed.success ? [] : parsed.error.issues.map((i) => ({ property: i.path.join(".") || "content", reason: i.message }));
  if (typeof config.directory === "string" && typeof config.filename === "string") {
    for (const e of checkUpload(config.directory, config.filename)) failures.push({ property: e.path, reason: `${e.path} ${e.message}` });
  }
  return failures;
}

/** The digest the declared inputs would upload (reads `source`), to compare with the recorded one. */
export async function declaredDigest(config: Props): Promise<string> {
  return sha256(await bytesOf(uploadInputs.parse(config)));
}

export async function sendUpload(calls: FileCalls, config: Props): Promise<Props> {
  const inputs = uploadInputs.parse(config);
  const bytes = await bytesOf(inputs);
  const path = `/uploads/${encodeURIComponent(inputs.directory)}/${encodeURIComponent(inputs.filename)}`;
  const contentType = inputs.filename.toLowerCase().endsWith(".csv") ? "text/csv" : "application/octet-stream";
  const answer = await calls.sendFile(path, bytes, contentType);
  return { ...(typeof answer === "object" && answer !== null ? answer : {}), sha256: sha256(bytes) };
}

/** The listed file, or undefined when the service no longer has it. */
export async function findUpload(calls: Calls, id: string): Promise<Props | undefined> {
  const listed = await calls.request("GET", "/uploads");
  return (Array.isArray(listed) ? (listed as Props[]) : []).find((u) => `${String(u.directory)}/${String(u.filename)}` === id);
}
