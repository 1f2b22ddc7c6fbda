// Building blocks shared by every resource family's contract.
import { z } from "zod";

export const SECRET_PLACEHOLDER = "<secret>";

export const id = z.guid({ error: "must be a uuid" });
export const name = z.string({ error: "must be a string" }).refine((s) => s.trim().length > 0, {
  error: "must be a non-empty string",
});
export const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, { error: "must be a date in YYYY-MM-DD form" });
export const timestamp = z.string();
export const status = z.enum(["new", "starting", "running", "ready", "error"]);
export type Status = z.infer<typeof status>;

/** Read-only members every resource answers with (API-FACTS "Common resource fields"). */
export const common = {
  id,
  name: z.string(),
  created_at: timestamp,
  updated_at: timestamp,
  resource_type: z.string(),
  status,
  status_changed_at: timestamp.nullish(),
  status_error: z.string().nullish(),
  archived_at: timestamp.nullish(),
  last_read_input_at: timestamp.nullish(),
  last_updated_config_at: timestamp.nullish(),
  last_updated_output_at: timestamp.nullish(),
};
export const COMMON_READ_ONLY = Object.keys(common).filter((k) => k !== "name");

/** Build bookkeeping written by the service, never by a client. */
export type CommonResponse = z.infer<z.ZodObject<typeof common>>;

export interface FamilyDef<
  Create extends z.ZodType = z.ZodType,
  Patch extends z.ZodType = z.ZodType,
  Response extends z.ZodType = z.ZodType,
> {
  /** Singular name in the spec's words: "scope", "persona_set". */
  name: string;
  /** Collection name and `resource_type`: "scopes", "persona_sets". */
  collection: string;
  /** URL path of the collection relative to the base URL, without leading slash: "scopes", "knowledgebase/use_cases". */
  path: string;
  /** Wire (snake_case) body of POST; strict, with the spec's rules and defaults. */
  create: Create;
  /** Wire body of PATCH (merge patch): every member optional, optional members nullable. */
  patch: Patch;
  /** Wire response body. */
  response: Response;
  /** Response members a client may never send. */
  readOnly: readonly string[];
  /** Dotted wire paths of members holding credentials; answered as `<secret>`. */
  secrets: readonly string[];
  /** Whether the resource builds in the background (status new -> ready). */
  builds: boolean;
  /** Members that cannot change after create: a change means a new resource. */
  createOnly: readonly string[];
  /** Members naming other resources, e.g. `{ path: "population.cohort_ids[]", collection: "cohorts" }`. */
  references: readonly Reference[];
  /** False for families the API only reads (forecasts: seeded by the service). */
  creatable: boolean;
  /** False where DELETE is not offered. */
  deletable: boolean;
  /** Whether archive / unarchive / force_update apply. */
  archivable: boolean;
  /** One per account, no id in the path (insights). */
  singleton: boolean;
}

/** A member holding the id(s) of another resource; `[]` marks array elements in the dotted wire path. */
export interface Reference {
  path: string;
  collection: string;
}

type FamilyDefaults = "secrets" | "createOnly" | "builds" | "path" | "references" | "creatable" | "deletable" | "archivable" | "singleton";

export function defineFamily<C extends z.ZodType, P extends z.ZodType, R extends z.ZodType>(
  def: Omit<FamilyDef<C, P, R>, FamilyDefaults> & Partial<Pick<FamilyDef, FamilyDefaults>>,
): FamilyDef<C, P, R> {
  return {
    secrets: [], createOnly: [], references: [], builds: true, path: def.collection,
    creatable: true, deletable: true, archivable: true, singleton: false, ...def,
  };
}

/** A strict body: unknown members are refused (and reported as read-only where they are). */
export function body<S extends z.core.$ZodLooseShape>(shape: S) {
  return z.strictObject(shape);
}

/**
 * The merge-patch form of a strict create shape: every member optional; members that were optional may be
 * `null` (to clear them); nested plain objects are patched member by member. Cross-member rules are enforced
 * on the merged document with the create schema, as the service does.
 */
export function patchOf<S extends z.core.$ZodLooseShape>(shape: S) {
  const out: Record<string, z.ZodType> = {};
  for (const [key, field] of Object.entries(shape) as [string, z.ZodType][]) {
    const optional = field instanceof z.ZodOptional || field instanceof z.ZodDefault || field.safeParse(undefined).success;
    let inner: z.ZodType = field;
    while (inner instanceof z.ZodOptional || inner instanceof z.ZodDefault || inner instanceof z.ZodNullable) {
      inner = inner.def.innerType as z.ZodType;
    }
    const patched = inner instanceof z.ZodObject ? patchOf(inner.shape as z.core.$ZodLooseShape) : inner;
    out[key] = (optional ? patched.nullable() : patched).optional();
  }
  return z.strictObject(out) as z.ZodObject<{ [K in keyof S]: z.ZodOptional<z.ZodType> }, z.core.$strict>;
}

export interface FieldError {
  /** Dotted wire path of the member, e.g. `population.cohort_ids[0]`. */
  path: string;
  message: string;
  context: { errorType: string };
}

export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out === "" ? String(part) : `.${String(part)}`;
  }
  return out;
}

/** Turns zod issues into the service's validationErrors, one per offending member. */
export function toValidationErrors(issues: readonly z.core.$ZodIssue[], readOnly: readonly string[] = []): FieldError[] {
  const out: FieldError[] = [];
  for (const issue of issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        const isReadOnly = issue.path.length === 0 && readOnly.includes(key);
        out.push({
          path: formatPath([...issue.path, key]),
          message: isReadOnly ? "is read-only and cannot be set" : "is not a recognized field",
          context: { errorType: isReadOnly ? "read_only" : "unrecognized_key" },
        });
      }
    } else {
      out.push({ path: formatPath(issue.path), message: issue.message, context: { errorType: issue.code } });
    }
  }
  return out;
}

export type Validation<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

/** Validates a wire body against a schema, naming each failing member by its path. */
export function validate<T extends z.ZodType>(schema: T, value: unknown, readOnly: readonly string[] = []): Validation<z.output<T>> {
  const result = schema.safeParse(value);
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, errors: toValidationErrors(result.error.issues, readOnly) };
}
