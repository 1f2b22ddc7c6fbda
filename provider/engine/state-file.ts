// The stack's state file, in the layout of `pulumi stack export` (version 3, a passphrase secrets provider): what it
// holds, and how a document is checked against that layout so a damaged file is named field by field.
import { createHash } from "node:crypto";
import { z } from "zod";
import type { CustomTimeouts } from "./timeouts.ts";
import type { PropertyMap } from "../protocol/values.ts";

export interface ResourceState {
  urn: string;
  custom: boolean;
  type: string;
  id?: string;
  inputs: PropertyMap;
  outputs: PropertyMap;
  parent?: string;
  dependencies: string[];
  propertyDependencies?: Record<string, string[]>;
  provider?: string;
  protect?: boolean;
  retainOnDelete?: boolean;
  deleteBeforeReplace?: boolean;
  additionalSecretOutputs?: string[];
  ignoreChanges?: string[];
  /** Where the program declares it (`project:///index.ts#12,5`), as Pulumi records it. */
  sourcePosition?: string;
  /** Read with `.get()`, not managed: never deleted, only forgotten. */
  external?: boolean;
  /** An old copy waiting to be deleted after its replacement was created. */
  delete?: boolean;
  /** Reasons the provider gave when the resource exists but did not finish initializing. */
  initErrors?: string[];
  /** The program's customTimeouts, in seconds, as Pulumi records them. */
  customTimeouts?: CustomTimeouts;
}

export interface PendingOperation {
  resource: Pick<ResourceState, "urn" | "type" | "inputs"> & { id?: string };
  type: "creating" | "updating" | "deleting";
  /** When the call began (ms since the epoch): what a create left unknown was made after it. */
  startedAt?: number;
  /** Why it is still pending when its call failed with its outcome unknown (the errors, as the step reported them). */
  reason?: string;
}

/** The state file; Pulumi names the snapshot in it `deployment`. */
export interface StateFile {
  version: 3;
  deployment: {
    manifest: { time: string; magic: string; version: string };
    /** Absent for a stack that never held a secret. */
    secrets_providers?: { type: "passphrase"; state: { salt: string } };
    resources: ResourceState[];
    pending_operations?: (PendingOperation & { id: string })[];
  };
}

export class StateError extends Error {
  override name = "StateError";
}

// The stored layout, checked on load so a damaged file is named, field by field, instead of failing later. Members
// this engine does not use (a `pulumi stack export` has more) pass through untouched.
const propertyMap = z.record(z.string(), z.unknown());
const names = z.array(z.string());
export const storedResource = z.looseObject({
  urn: z.string().startsWith("urn:pulumi:"),
  type: z.string(),
  custom: z.boolean().default(false),
  id: z.string().optional(),
  inputs: propertyMap.default({}),
  outputs: propertyMap.default({}),
  parent: z.string().optional(),
  dependencies: names.default([]),
  propertyDependencies: z.record(z.string(), names).optional(),
  provider: z.string().optional(),
  protect: z.boolean().optional(),
  retainOnDelete: z.boolean().optional(),
  deleteBeforeReplace: z.boolean().optional(),
  additionalSecretOutputs: names.optional(),
  ignoreChanges: names.optional(),
  sourcePosition: z.string().optional(),
  external: z.boolean().optional(),
  delete: z.boolean().optional(),
  initErrors: names.optional(),
  customTimeouts: z.looseObject({ create: z.number().optional(), update: z.number().optional(), delete: z.number().optional() }).optional(),
});
export const storedOperation = z.looseObject({
  /** Names the operation in the journal's records; Pulumi's own state has none. */
  id: z.string().optional(),
  type: z.enum(["creating", "updating", "deleting"]),
  startedAt: z.number().optional(),
  reason: z.string().optional(),
  resource: z.looseObject({ urn: z.string(), type: z.string(), id: z.string().optional(), inputs: propertyMap.default({}) }),
});
const storedDeployment = z.looseObject({
  // Without a passphrase salt (an export of another secrets provider made with --show-secrets, or of a stack
  // without secrets) every secret must be in plaintext; they are then sealed with the stack's own salt.
  secrets_providers: z.looseObject({ state: z.looseObject({ salt: z.string().optional() }).optional() }).optional(),
  // Pulumi leaves the member out when there are none (a stack whose first run was stopped before any resource).
  resources: z.array(storedResource).default([]),
  pending_operations: z.array(storedOperation).optional(),
});
const storedStateFile = z.looseObject({ version: z.literal(3), deployment: storedDeployment });
/** The same, its resources left to `writtenWhole`. */
const storedStateShell = z.looseObject({ version: z.literal(3), deployment: storedDeployment.extend({ resources: z.array(z.unknown()).default([]) }) });

export type StoredStateFile = z.output<typeof storedStateFile>;
export type StoredResource = z.output<typeof storedResource>;

const isString = (v: unknown): v is string => typeof v === "string";
const isBoolean = (v: unknown): v is boolean => typeof v === "boolean";
const isMap = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isNames = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);
const optional = (v: unknown, is: (v: unknown) => boolean) => v === undefined || is(v);

/**
 * A resource as this engine writes it (with every member `storedResource` has a default for), checked by hand: zod's check
 * of each resource costs more than parsing the file. One this does not pass goes to `storedResource`, which takes
 * what other tools write and names what is wrong.
 */
function writtenWhole(r: unknown): r is StoredResource {
  if (!isMap(r)) return false;
  const timeouts = r["customTimeouts"];
  const propertyDependencies = r["propertyDependencies"];
  return isString(r["urn"]) && r["urn"].startsWith("urn:pulumi:") && isString(r["type"]) && isBoolean(r["custom"])
    && isMap(r["inputs"]) && isMap(r["outputs"]) && isNames(r["dependencies"])
    && ["id", "parent", "provider", "sourcePosition"].every((k) => optional(r[k], isString))
    && ["protect", "retainOnDelete", "deleteBeforeReplace", "external", "delete"].every((k) => optional(r[k], isBoolean))
    && ["additionalSecretOutputs", "ignoreChanges", "initErrors"].every((k) => optional(r[k], isNames))
    && optional(propertyDependencies, (d) => isMap(d) && Object.values(d).every(isNames))
    && optional(timeouts, (t) => isMap(t) && ["create", "update", "delete"].every((k) => optional(t[k], (n) => typeof n === "number")));
}

/** A state document checked against the stored layout. */
export function parseStateFile(doc: unknown): ReturnType<typeof storedStateFile.safeParse> {
  const shell = storedStateShell.safeParse(doc);
  if (shell.success && shell.data.deployment.resources.every(writtenWhole)) {
    const data: StoredStateFile = { ...shell.data, deployment: { ...shell.data.deployment, resources: shell.data.deployment.resources as StoredResource[] } };
    return { success: true, data };
  }
  return storedStateFile.safeParse(doc);
}

export function where(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === "number" ? `[${p}]` : `${i === 0 ? "" : "."}${String(p)}`)).join("") || "(document)";
}

/**
 * What this engine adds to its own state file, beside the `pulumi stack export` layout (a member Pulumi's import
 * ignores, and `audience stack export` leaves out): the last journal record folded into the file, and a checksum of
 * the deployment as written, so an edit or a cut is found instead of acted on.
 */
export interface Integrity {
  /** The `seq` of the last journal record the file holds; the journal goes on from the next. */
  journal: number;
  /** sha256 of `journal` and the `deployment` member's text. */
  sha256: string;
}

const DEPLOYMENT_KEY = '"deployment":';

/** The checksum of a state file: of the deployment's text and the journal record it holds up to. */
function digest(folded: number, deployment: string): string {
  return createHash("sha256").update(`${folded}:`).update(deployment).digest("hex");
}

/** The state file's text: the integrity member first, then the deployment it checks, as written. */
export function stateFileText(deployment: StateFile["deployment"], folded: number): string {
  const text = JSON.stringify(deployment);
  const integrity: Integrity = { journal: folded, sha256: digest(folded, text) };
  return `{"version":3,"integrity":${JSON.stringify(integrity)},${DEPLOYMENT_KEY}${text}}\n`;
}

/** How a state is changed by hand without damaging it. */
export const EDIT_ADVICE = "To change a state, export it (`audience stack export`), edit the export and import it (`audience stack import`)";

/**
 * The file's integrity member, checked against the deployment's text: undefined for a file without one (written by
 * another tool, or before the engine kept one); a StateError naming what is wrong when it does not match.
 */
export function checkIntegrity(text: string, doc: unknown, source: string): Integrity | undefined {
  const integrity = (doc as { integrity?: unknown }).integrity;
  if (integrity === undefined) return undefined;
  const found = z.strictObject({ journal: z.number().int().nonnegative(), sha256: z.string() }).safeParse(integrity);
  const start = text.indexOf(DEPLOYMENT_KEY);
  const end = text.lastIndexOf("}");
  const actual = found.success && start >= 0 && end > start ? digest(found.data.journal, text.slice(start + DEPLOYMENT_KEY.length, end)) : undefined;
  if (!found.success || actual !== found.data.sha256) {
    throw new StateError(`${source}: the state does not match the checksum written with it: it was edited or damaged since. ${EDIT_ADVICE}`);
  }
  return found.data;
}

/** A stack's state before its first run: no resources, and no salt until a first secret makes one. */
export const EMPTY_STATE = { version: 3, deployment: { resources: [] } };
