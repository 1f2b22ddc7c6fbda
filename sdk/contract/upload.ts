// Uploads: files posted as raw bytes to /uploads/{directory}/{filename}, read by hosted_csv datasets and atlases.
import { z } from "zod";
import { defineFamily } from "./family.ts";
import type { FieldError } from "./validation.ts";
import type { MemberDocs } from "./docs.ts";

/** Accepted file names: CSV, optionally gzip- or bzip2-compressed (zip and tar are no longer supported). */
export const UPLOAD_EXTENSIONS = [".csv", ".csv.gz", ".csv.bz2", ".gz", ".bz2"] as const;
const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Checks the directory and file name of an upload; errors name `directory` or `filename`. */
export function checkUpload(directory: string, filename: string): FieldError[] {
  const errors: FieldError[] = [];
  const bad = (path: string, message: string) => errors.push({ path, message, context: { errorType: "invalid_upload" } });
  if (!SEGMENT.test(directory)) bad("directory", "must be one path segment of letters, digits, '.', '_' or '-'");
  if (!SEGMENT.test(filename)) bad("filename", "must be one path segment of letters, digits, '.', '_' or '-'");
  else if (/\.(zip|tar|tar\.gz|tgz)$/i.test(filename)) bad("filename", "is a zip or tar archive, which is no longer supported: upload .csv, .csv.gz or .csv.bz2");
  else if (!UPLOAD_EXTENSIONS.some((ext) => filename.toLowerCase().endsWith(ext))) bad("filename", `must end with one of ${UPLOAD_EXTENSIONS.join(", ")}`);
  return errors;
}

/** One uploaded file, as GET /uploads lists it on the live service. */
export const uploadResponse = z.object({
  /** `directory/filename`. */
  subpath: z.string(),
  file_size: z.number().int().nullish(),
  /** Hex MD5 of the file's bytes, as the service computes it. */
  md5_hash: z.string().nullish(),
  created_at: z.string().nullish(),
}).loose();
export type UploadResponse = z.output<typeof uploadResponse>;

/** Where a file lives in the account's uploads: the `subpath` the service lists it under. */
export function uploadSubpath(directory: string, filename: string): string {
  return `${directory}/${filename}`;
}

/** The directory and file name of a subpath: the directory is one path segment, so it ends at the first slash. */
export function splitUploadSubpath(subpath: string): { directory: string; filename: string } {
  const slash = subpath.indexOf("/");
  return { directory: subpath.slice(0, slash), filename: subpath.slice(slash + 1) };
}

/** Field docs of uploads, by member path (see docs.ts). */
export const uploadDocs = {
  subpath: "Where the service lists the file: `directory/filename`.",
  file_size: "Size of the file in bytes, as the service lists it.",
  md5_hash: "Hex MD5 of the file's bytes, as the service computes it: what a change of the bytes is measured against.",
  created_at: "When the file was (last) uploaded.",
} as const satisfies MemberDocs;

/** Uploads have no JSON body and no id: created by POST of the file's bytes, listed, downloaded, deleted. */
export const upload = defineFamily({
  name: "upload",
  className: "Upload",
  summary: "A file (CSV, optionally gzip- or bzip2-compressed) in an upload directory that datasets and atlases read.",
  collection: "uploads",
  shape: {},
  response: uploadResponse,
  docs: uploadDocs,
  readOnly: Object.keys(uploadResponse.shape),
  creatable: false,
  archivable: false,
  builds: false,
  noLookup: "an upload has no id to look up by: its `subpath` names it, and `GET /uploads` lists them all.",
});
