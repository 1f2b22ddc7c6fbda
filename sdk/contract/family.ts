// A family's definition (`defineFamily`) and what it derives: the create, patch and response bodies, the common
// read-only members every resource answers with, and the answer form of a request schema.
import { z } from "zod";
import type { AccountFeatureRule } from "./account-features.ts";
import type { MemberDocs } from "./docs.ts";
import { crossRule, id, oneOf, timestamp } from "./fields.ts";

/** What the service answers in place of a credential member. */
export const SECRET_PLACEHOLDER = "<secret>";

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
  /** The build waits while the resource's `preview` is true: the service trains nothing for a preview. */
  previewHoldsBuild: boolean;
  /** Members that cannot change after create: a change means a new resource. */
  createOnly: readonly string[];
  /** Top-level members the service sets once and then keeps: a later value, or a null, leaves the first. */
  setOnce: readonly string[];
  /** A replacement conflicts with the resource it replaces (one per pair of accounts): the old one goes first. */
  replaceDeletesFirst: boolean;
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

/** A member holding the id(s) of another resource; `[]` marks array elements in the dotted wire path. */
export interface Reference {
  path: string;
  collection: string;
  /** The referencing resource is part of the referenced one (an atlas's locations): it goes with its owner and never blocks it. */
  owned?: boolean;
}

type FamilyDefaults = "readOnly" | "secrets" | "createOnly" | "setOnce" | "replaceDeletesFirst" | "builds" | "previewHoldsBuild" | "path" | "references" | "creatable"
  | "deletable" | "archivable" | "forceUpdatable" | "singleton" | "createdStatus" | "deletion" | "accountFeatures";

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
    secrets: [], createOnly: [], setOnce: [], replaceDeletesFirst: false, references: [], builds: true, previewHoldsBuild: false, path: def.collection,
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
    // Moving to another variant clears the members of the one left (RFC 7396: null removes a member), so each
    // variant's patch takes null for its siblings' members.
    const cleared = Object.fromEntries(variants.flatMap((o) => Object.keys(o.shape)).map((key) => [key, z.null().optional()]));
    const options = variants.map((o) => {
      const shape = discriminator !== undefined && values.length > 0
        ? { ...o.shape, [discriminator]: oneOf(values as [string, ...string[]]) } : o.shape;
      return patchOf({ ...cleared, ...shape } as z.core.$ZodLooseShape);
    });
    return z.union(options as unknown as [z.ZodType, z.ZodType, ...z.ZodType[]]);
  }
  return inner;
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
