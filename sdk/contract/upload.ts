// Uploads: files posted as raw bytes to /uploads/{directory}/{filename}, read by hosted_csv datasets and atlases.
import { z } from "zod";
import { defineFamily, type FieldError } from "./common.ts";

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

/** One uploaded file, as listed by GET /uploads (shape not shown). */
export const uploadResponse = z.object({
  directory: z.string(),
  filename: z.string(),
  size: z.number().int().nullish(),
  created_at: z.string().nullish(),
}).loose();
export type UploadResponse = z.output<typeof uploadResponse>;

/** Uploads have no JSON body and no id: created by POST of the file's bytes, listed, downloaded. */
export const upload = defineFamily({
  name: "upload",
  className: "Upload",
  collection: "uploads",
  create: z.strictObject({}),
  patch: z.strictObject({}),
  response: uploadResponse,
  readOnly: Object.keys(uploadResponse.shape),
  creatable: false,
  deletable: false,
  archivable: false,
  builds: false,
});
