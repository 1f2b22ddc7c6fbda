// Building blocks shared by every resource family's contract.
import { z } from "zod";
import type { MemberDocs } from "./docs.ts";
import { jsonEqual } from "./merge-patch.ts";
import { valueAt } from "./paths.ts";

export const SECRET_PLACEHOLDER = "<secret>";

/** An error message for a missing, null or mistyped member. */
export function expected(what: string) {
  return (iss: { input?: unknown }) =>
    iss.input === undefined ? "is required" : iss.input === null ? "is required and cannot be null" : `must be ${what}`;
}

export const id = z.guid({ error: expected("a uuid") });

/**
 * The longest name the service takes (of a resource, a column, a stream, a trait, a property). The spec gives
 * none; 256 characters holds any real name and keeps a name from being a payload.
 */
export const MAX_NAME_LENGTH = 256;
/** Lone surrogates (text no UTF-8 can carry) and control characters (NUL, line breaks, tabs) are never part of a name. */
const LONE_SURROGATE = /\p{Cs}/u;
function hasControl(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

/** A name-like string: non-blank (`blank` says so otherwise), at most MAX_NAME_LENGTH characters of printable text. */
export function nameText(blank: string, what = "a string") {
  return z.string({ error: expected(what) })
    .refine((s) => s.trim().length > 0, { error: blank })
    .max(MAX_NAME_LENGTH, { error: `must be at most ${MAX_NAME_LENGTH} characters` })
    .refine((s) => !LONE_SURROGATE.test(s), { error: "must be valid Unicode text (it holds a lone surrogate)" })
    .refine((s) => !hasControl(s), { error: "must not hold control characters (NUL, line breaks, tabs)" });
}

export const name = nameText("must be a non-empty string");
/** A `_matches` pattern: refused up front when it cannot compile, rather than failing a build later. */
export const matchPattern = z.string().refine((source) => {
  try {
    new RegExp(source);
    return true;
  } catch {
    return false;
  }
}, { error: "must be a valid regular expression" });
/** A calendar date: the form alone would let `2024-13-45` through, and the build reading it would fail later. */
export const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, { error: "must be a date in YYYY-MM-DD form", abort: true })
  .refine(isCalendarDate, { error: "must be a real calendar date (month 01-12, a day the month has)" });
/** A point in time a client writes (an approval): ISO 8601 with a calendar date, a real time and an offset. */
export const instant = z.iso.datetime({ offset: true, error: "must be an ISO 8601 time with a real calendar date and an offset, e.g. 2024-05-01T12:00:00Z" });

function isCalendarDate(value: string): boolean {
  const [year, month, day] = value.split("-").map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return year >= 1 && date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}
export const timestamp = z.string();
export const ids = z.array(id);

/** A column of a source table: non-blank. */
export const column = nameText("must name a column (non-blank)", "a column name");

/** An enum whose error lists what is allowed. */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, { error: `must be one of ${values.join(", ")}` });
}

/** A member a variant of a union does not take; `why` says where it belongs. */
export function notAllowed(why: string) {
  return z.never({ error: why }).optional();
}

/** Adds an issue at a path below the checked value (inside `.check`). */
export function issue(ctx: { value: unknown; issues: z.core.$ZodRawIssue[] }, path: PropertyKey[], message: string): void {
  ctx.issues.push({ code: "custom", input: ctx.value, path, message });
}
export const status = z.enum(["new", "starting", "running", "ready", "error"]);
export type Status = z.infer<typeof status>;

/** Read-only members every resource answers with, whatever its family. */
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
  /** Class name a program writes and the type token's suffix (`pulumi-nodejs:dynamic/audience:<className>`). */
  className: string;
  /** What the family is: the doc of its class in both program faces. */
  summary: string;
  /** What to use instead, when the service keeps the family only for compatibility. */
  deprecated?: string;
  /**
   * Why the family has no lookup (`get<ClassName>`) in the faces and the plugin, when it has none; every other
   * family has one.
   */
  noLookup?: string;
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
  /** Field docs of the family's members, by member path (see docs.ts); the common members are documented once. */
  docs: MemberDocs;
  /**
   * Response members a client may never send. By default the response members that are not create members
   * (the name apart), so adding a server-computed member to a response makes it read-only too.
   */
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
  /** Whether archive / unarchive apply. */
  archivable: boolean;
  /** Whether POST .../force_update applies (a re-run; a migration's refreshes its metrics): where archiving does, unless said. */
  forceUpdatable: boolean;
  /** One per account, no id in the path (insights). */
  singleton: boolean;
  /** HTTP status of a successful create: 201, or 202 where creation is accepted and runs later (audits). */
  createdStatus: 201 | 202;
  /** `scheduled`: DELETE starts a waiting period instead of removing at once (accounts). */
  deletion: "immediate" | "scheduled";
  /** Members the service takes only from an account that has a feature (an identity graph, a feature store). */
  accountFeatures: readonly AccountFeatureRule[];
}

/**
 * What an account may have set on it that some members need: `identity_graph` (the account's `identity_graph`)
 * and `feature_store` (a feature store in the account).
 */
export type AccountFeature = "identity_graph" | "feature_store";

export const ACCOUNT_FEATURE_NAMES: Record<AccountFeature, string> = {
  identity_graph: "an identity graph (the account's identity_graph)",
  feature_store: "a feature store (POST /feature_stores)",
};

/** A member (dotted wire path) that is refused unless the account has every one of `features`. */
export interface AccountFeatureRule {
  path: string;
  features: readonly AccountFeature[];
}

/**
 * The members of `doc` set without an account feature they need, each naming the feature. A member is held to
 * its rule when it is set and non-empty; with `before` (an update), only when it changed.
 */
export function accountFeatureErrors(family: FamilyDef, doc: unknown, has: ReadonlySet<AccountFeature>, before?: unknown): FieldError[] {
  const errors: FieldError[] = [];
  for (const rule of family.accountFeatures) {
    const value = valueAt(doc, rule.path);
    if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) continue;
    if (before !== undefined && jsonEqual(valueAt(before, rule.path), value)) continue;
    const missing = rule.features.filter((f) => !has.has(f));
    if (missing.length === 0) continue;
    errors.push({
      path: rule.path,
      message: `needs an account with ${missing.map((f) => ACCOUNT_FEATURE_NAMES[f]).join(" and ")}, which this account does not have`,
      context: { errorType: "account_feature_required" },
    });
  }
  return errors;
}

/** A member holding the id(s) of another resource; `[]` marks array elements in the dotted wire path. */
export interface Reference {
  path: string;
  collection: string;
  /** The referencing resource is part of the referenced one (an atlas's locations): it goes with its owner and never blocks it. */
  owned?: boolean;
}

type FamilyDefaults = "readOnly" | "secrets" | "createOnly" | "builds" | "path" | "references" | "creatable" | "deletable"
  | "archivable" | "forceUpdatable" | "singleton" | "createdStatus" | "deletion" | "accountFeatures";

/** A family as its module writes it: the create members, and what the bodies are derived from. */
export type FamilySpec<S extends z.core.$ZodLooseShape, A extends z.core.$ZodLooseShape, R extends z.ZodType> =
  Omit<FamilyDef, FamilyDefaults | "create" | "patch" | "response"> & Partial<Pick<FamilyDef, FamilyDefaults>> & {
    /** The members a client writes (wire names): POST takes them strictly, PATCH as a merge patch. */
    shape: S;
    /** Rules across members, checked on a create body and on a merged document. */
    rules?: Parameters<z.ZodObject<S, z.core.$strict>["check"]>[0];
    /** Members the service adds to its answer (read-only), beside the common ones and the create members. */
    answers?: A;
    /** The answer, where it is not the create members plus `answers` (an audit answers findings, not its request). */
    response?: R;
  };

/** The create, patch and response bodies of a family, derived from its members; its docs and flags as written. */
export function defineFamily<
  const S extends z.core.$ZodLooseShape,
  A extends z.core.$ZodLooseShape = Record<never, never>,
  R extends z.ZodType = ReturnType<typeof responseOf<S, A>>,
>(spec: FamilySpec<S, A, R>): FamilyDef<z.ZodObject<S, z.core.$strict>, ReturnType<typeof patchOf<S>>, R> {
  const { shape, rules, answers, response: ownResponse, ...def } = spec;
  const create = rules === undefined ? body(shape) : body(shape).check(rules);
  const family = {
    secrets: [], createOnly: [], references: [], builds: true, path: def.collection,
    creatable: true, deletable: true, archivable: true, singleton: false, createdStatus: 201, deletion: "immediate", accountFeatures: [],
    ...def, create,
    forceUpdatable: def.forceUpdatable ?? def.archivable ?? true,
  } as FamilyDef<z.ZodObject<S, z.core.$strict>, ReturnType<typeof patchOf<S>>, R>;
  // Built on first use: most commands read a few families' answers, and building every family's costs start-up.
  builtOnFirstUse(family, "patch", () => patchOf(shape));
  builtOnFirstUse(family, "response", () => (ownResponse ?? responseOf(shape, answers ?? {})) as R);
  if (def.readOnly === undefined) builtOnFirstUse(family, "readOnly", () => responseOnlyMembers(create, family.response));
  return family;
}

/** Makes `key` a member whose value `build` makes when it is first read, then kept as a plain member. */
function builtOnFirstUse<T extends object, K extends keyof T>(target: T, key: K, build: () => T[K]): void {
  Object.defineProperty(target, key, {
    configurable: true,
    enumerable: true,
    get() {
      const value = build();
      Object.defineProperty(target, key, { value, configurable: true, enumerable: true, writable: true });
      return value;
    },
  });
}

function responseOnlyMembers(create: z.ZodType, response: z.ZodType): string[] {
  const keys = (schema: z.ZodType) => (schema instanceof z.ZodObject ? Object.keys(schema.shape) : []);
  const written = new Set(keys(create));
  return keys(response).filter((k) => k !== "name" && !written.has(k));
}

/** A strict body: unknown members are refused (and reported as read-only where they are). */
export function body<S extends z.core.$ZodLooseShape>(shape: S) {
  return z.strictObject(shape);
}

/**
 * The merge-patch form of a strict create shape: every member optional; members that were optional may be
 * `null` (to clear them); nested plain objects are patched member by member, record entries may be `null`
 * (to remove them), a union variant is patched like an object. Cross-member rules are enforced on the merged
 * document with the create schema, as the service does.
 */
export function patchOf<S extends z.core.$ZodLooseShape>(shape: S) {
  const out: Record<string, z.ZodType> = {};
  const required: string[] = [];
  for (const [key, field] of Object.entries(shape) as [string, z.ZodType][]) {
    const optional = field instanceof z.ZodOptional || field instanceof z.ZodDefault || field.safeParse(undefined).success;
    if (!optional) required.push(key);
    out[key] = patchMember(field).nullable().optional();
  }
  // Null passes the member so that the refusal below says why, whatever the member's own message.
  return z.strictObject(out).check(crossRule<Record<string, unknown>>(required, (value, add) => {
    for (const key of required) if (value[key] === null) add([key], "is required and cannot be null");
  })) as unknown as z.ZodObject<{ [K in keyof S]: z.ZodOptional<z.ZodType> }, z.core.$strict>;
}

function patchMember(field: z.ZodType): z.ZodType {
  let inner: z.ZodType = field;
  while (inner instanceof z.ZodOptional || inner instanceof z.ZodDefault || inner instanceof z.ZodNullable) {
    inner = inner.def.innerType as z.ZodType;
  }
  if (inner instanceof z.ZodObject) {
    const patched = patchOf(inner.shape as z.core.$ZodLooseShape);
    return inner.def.catchall instanceof z.ZodUnknown ? patched.loose() : patched;
  }
  if (inner instanceof z.ZodRecord) {
    return z.record(inner.def.keyType as z.core.$ZodRecordKey, patchMember(inner.def.valueType as z.ZodType).nullable());
  }
  if (inner instanceof z.ZodUnion && (inner.def.options as z.ZodType[]).every((o) => o instanceof z.ZodObject)) {
    const variants = inner.def.options as z.ZodObject[];
    // A patch may omit the discriminator; when given, any of the union's values is structurally fine (the merged
    // document is checked against the create schema).
    const discriminator = (inner.def as { discriminator?: string }).discriminator;
    const values = discriminator === undefined ? [] : variants.flatMap((o) => {
      const field = o.shape[discriminator] as z.ZodType | undefined;
      return [...((field?._zod as { values?: Set<string> } | undefined)?.values ?? [])];
    });
    const options = variants.map((o) => {
      const shape = discriminator !== undefined && values.length > 0
        ? { ...o.shape, [discriminator]: oneOf(values as [string, ...string[]]) } : o.shape;
      return patchOf(shape as z.core.$ZodLooseShape);
    });
    return z.union(options as unknown as [z.ZodType, z.ZodType, ...z.ZodType[]]);
  }
  return inner;
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
  const mistyped = new Set(issues.filter((i) => i.code === "invalid_type").map((i) => formatPath(i.path)));
  for (const issue of issues) {
    // A value of the wrong type is reported once, not also for its length or format.
    if (issue.code !== "invalid_type" && issue.code !== "custom" && mistyped.has(formatPath(issue.path))) continue;
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        const isReadOnly = issue.path.length === 0 && readOnly.includes(key);
        const custom = !issue.message.startsWith("Unrecognized key");
        out.push({
          path: formatPath([...issue.path, key]),
          message: isReadOnly ? "is read-only and cannot be set" : custom ? issue.message : "is not a recognized field",
          context: { errorType: isReadOnly ? "read_only" : "unrecognized_key" },
        });
      }
    } else if (issue.code === "invalid_union" && issue.errors.length > 0 && !issue.message.startsWith("must")) {
      // No variant matched: report the closest one's complaints, below the union's path.
      const closest = issue.errors.reduce((a, b) => (b.length < a.length ? b : a));
      const nested = closest.map((i) => ({ ...i, path: [...issue.path, ...i.path] }) as z.core.$ZodIssue);
      out.push(...toValidationErrors(nested, issue.path.length === 0 ? readOnly : []));
    } else {
      out.push({ path: formatPath(issue.path), message: plainMessage(issue), context: { errorType: issue.code } });
    }
  }
  return out;
}

/** zod's default wording, said in the service's terms; messages written by the schemas are kept. */
function plainMessage(issue: z.core.$ZodIssue): string {
  const m = issue.message;
  if (issue.code === "invalid_type" && m.startsWith("Invalid input")) {
    if (m.endsWith("received undefined")) return "is required";
    if (m.endsWith("received null")) return "is required and cannot be null";
    const what = { int: "an integer", record: "an object", object: "an object", array: "an array" }[issue.expected as string];
    return `must be ${what ?? `a ${issue.expected}`}`;
  }
  if ((issue.code === "too_small" || issue.code === "too_big") && m.startsWith("Too")) {
    const small = issue.code === "too_small";
    const bound = small ? issue.minimum : issue.maximum;
    const inclusive = issue.inclusive !== false;
    if (issue.origin === "string") return small && Number(bound) === 1 ? "must not be empty" : `must have ${small ? "at least" : "at most"} ${bound} characters`;
    if (issue.origin === "array" || issue.origin === "set") return `must have ${small ? "at least" : "at most"} ${bound} item${Number(bound) === 1 ? "" : "s"}`;
    return `must be ${small ? (inclusive ? "at least" : "greater than") : (inclusive ? "at most" : "less than")} ${bound}`;
  }
  if (issue.code === "invalid_format" && m.startsWith("Invalid")) {
    return issue.format === "regex" && issue.pattern ? `must match ${issue.pattern}` : `must be a valid ${issue.format}`;
  }
  if (issue.code === "invalid_key") {
    return `is not an allowed key: ${issue.issues.map((i) => i.message).join("; ")}`;
  }
  if (issue.code === "invalid_value" && m.startsWith("Invalid")) {
    return `must be one of ${issue.values.map(String).join(", ")}`;
  }
  return m;
}

export type Validation<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

/** Validates a wire body against a schema, naming each failing member by its path. */
export function validate<T extends z.ZodType>(schema: T, value: unknown, readOnly: readonly string[] = []): Validation<z.output<T>> {
  const result = schema.safeParse(value);
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, errors: toValidationErrors(result.error.issues, readOnly) };
}

/**
 * The answer form of a request schema: objects keep unknown server members, optional members may come back
 * `null`, defaults are not applied, and cross-member rules are dropped (the service already applied them).
 */
export function loosen(schema: z.ZodType): z.ZodType {
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodDefault) return loosen(schema.def.innerType as z.ZodType).nullish();
  if (schema instanceof z.ZodNullable) return loosen(schema.def.innerType as z.ZodType).nullable();
  if (schema instanceof z.ZodObject) return z.object(loosenShape(schema.shape as z.core.$ZodLooseShape)).loose();
  if (schema instanceof z.ZodArray) return z.array(loosen(schema.def.element as z.ZodType));
  if (schema instanceof z.ZodRecord) return z.record(z.string(), loosen(schema.def.valueType as z.ZodType));
  if (schema instanceof z.ZodUnion) {
    const options = (schema.def.options as z.ZodType[]).map(loosen) as [z.ZodType, z.ZodType, ...z.ZodType[]];
    const discriminator = (schema.def as { discriminator?: string }).discriminator;
    return discriminator === undefined
      ? z.union(options)
      : z.discriminatedUnion(discriminator, options as unknown as [z.ZodObject, z.ZodObject, ...z.ZodObject[]]);
  }
  return schema;
}

/** Members in their answer form, typed as the request's output (or null). */
export type Loosened<S extends z.core.$ZodLooseShape> = { [K in keyof S]: z.ZodType<z.output<S[K]> | null | undefined> };

export function loosenShape<S extends z.core.$ZodLooseShape>(shape: S): Loosened<S> {
  return Object.fromEntries(Object.entries(shape).map(([k, v]) => [k, loosen(v as z.ZodType)])) as Loosened<S>;
}

/**
 * A family's response: the common bookkeeping, the create members in their answer form, and the family's
 * read-only members; unknown server members are kept.
 */
export function responseOf<S extends z.core.$ZodLooseShape, R extends z.core.$ZodLooseShape>(shape: S, readOnlyShape: R) {
  // Spelled out: a spread of a generic shape would intersect a member both shapes hold (a nullable `name`).
  type Members = Overridden<Overridden<typeof common, Loosened<S>>, { name: z.ZodString }>;
  const members = { ...common, ...loosenShape(shape), name: z.string(), ...readOnlyShape } as unknown as Overridden<Members, R>;
  return z.object(members).loose();
}

/** The members of `A`, those of `B` replacing any of the same name. */
type Overridden<A, B> = { [K in keyof A | keyof B]: K extends keyof B ? B[K] : K extends keyof A ? A[K] : never };

/** The type of a merge-patch body for a document of type T: members optional, `null` clears, objects patched deeply. */
export type MergePatchOf<T> = {
  [K in keyof T]?: (T[K] extends readonly unknown[] ? T[K] : T[K] extends object ? MergePatchOf<T[K]> : T[K]) | null;
};

/**
 * A rule across members of an object, run whenever the members it reads are well-formed, so that one answer
 * names every offending member; `reads` lists those members.
 */
export function crossRule<T>(reads: readonly (keyof T & string)[], rule: (value: T, add: (path: PropertyKey[], message: string) => void) => void) {
  return z.superRefine<T>((value, ctx) => {
    rule(value, (path, message) => ctx.addIssue({ code: "custom", path, message, input: value }));
  }, {
    when: (payload) => !payload.issues.some((i) => {
      const path = i.path ?? [];
      return (path.length === 0 && i.code === "invalid_type") || (reads as readonly PropertyKey[]).includes(path[0] ?? "");
    }),
  });
}
