// What a run plans to do, one step per resource: the step generator decides them, the step executor carries them
// out, and a preview shows them without carrying them out. Each step keeps the old and new state so a display can
// show values, not only names.
import type { ResourceState } from "./state-file.ts";

/**
 * create/adopt/update/replace/delete/same/read as `pulumi up` shows them (adopt: created by taking over an existing
 * resource, as Pulumi's import); drift and gone are what refresh finds.
 */
export type StepOp = "create" | "adopt" | "update" | "replace" | "delete" | "same" | "read" | "drift" | "gone";

/** A resource the program declares that the stack does not hold yet (a component, or a custom resource to create). */
export interface CreateStep {
  op: "create";
  urn: string;
  /** The state to record; its outputs are the inputs until the provider answers. */
  new: ResourceState;
}

/** A custom resource created by taking over the existing one the inputs name, or the `import` option names. */
export interface AdoptStep {
  op: "adopt";
  urn: string;
  /** The id of the existing resource. */
  id: string;
  /** Imported: `new` is already what was read, to record as it is (else the provider's create adopts it). */
  imported?: boolean;
  new: ResourceState;
}

export interface UpdateStep {
  op: "update";
  urn: string;
  old: ResourceState;
  new: ResourceState;
  /** Paths of the inputs that change (`options.host`). */
  keys: string[];
}

export interface ReplaceStep {
  op: "replace";
  urn: string;
  old: ResourceState;
  new: ResourceState;
  /** The members forcing the replacement, then the other inputs that change. */
  keys: string[];
  replaces: string[];
  /** Delete the old resource before creating the new one (else create first, delete after). */
  deleteBeforeReplace: boolean;
}

/** Nothing to change in the service; the state takes the registration's options and, for refresh, what was read. */
export interface SameStep {
  op: "same";
  urn: string;
  old: ResourceState;
  new: ResourceState;
}

export interface DeleteStep {
  op: "delete";
  urn: string;
  old: ResourceState;
  /** URNs whose deletes go first: the resources depending on this one. */
  after: string[];
}

/** A resource read, not managed: `.get()` of a dynamic resource, or another stack's outputs for a StackReference. */
export interface ReadStep {
  op: "read";
  urn: string;
  /** What was read: a resource by its id, or a stack by its name. */
  from: "resource" | "stack";
  id: string;
  new: ResourceState;
}

/** Refresh found a declared property changed outside the program. */
export interface DriftStep {
  op: "drift";
  urn: string;
  old: ResourceState;
  new: ResourceState;
  keys: string[];
}

/** Refresh found the resource deleted outside the stack. */
export interface GoneStep {
  op: "gone";
  urn: string;
  old: ResourceState;
}

export type Step = CreateStep | AdoptStep | UpdateStep | ReplaceStep | SameStep | DeleteStep | ReadStep | DriftStep | GoneStep;

/** The properties a step is about, as progress reports them. */
export function stepKeys(step: Step): string[] {
  return "keys" in step ? step.keys : [];
}

/** A short note on how a step goes, for people. */
export function stepDetail(step: Step): string | undefined {
  switch (step.op) {
    case "adopt":
      return `id ${step.id}`;
    case "replace":
      return step.deleteBeforeReplace ? "delete before replace" : undefined;
    case "delete":
      return step.old.external ? "read with .get(): forgotten, not deleted" : step.old.retainOnDelete ? "retained: removed from the state only" : undefined;
    case "read":
      return `${step.from === "stack" ? "stack" : "id"} ${step.id}`;
    case "gone":
      return "deleted outside this stack";
    default:
      return undefined;
  }
}

/**
 * A step that could not be planned: the operation it would have been, the properties at fault, and what kind of
 * failure it was when the provider says (ProviderError.code).
 */
/** Why a protected resource is not deleted, and what to do. */
export function protectedDelete(urn: string): string {
  return `${urn} is protected: set protect: false and run up before deleting it`;
}

export class PlanError extends Error {
  override name = "PlanError";
  readonly op: StepOp;
  readonly keys: string[];
  readonly code: string | undefined;
  constructor(message: string, op: StepOp, keys: string[] = [], code?: string) {
    super(message);
    this.op = op;
    this.keys = keys;
    this.code = code;
  }
}

/** The code of a failure (a ProviderError's, a PlanError's), if it has one. */
export function failureCode(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | undefined)?.code;
  return typeof code === "string" ? code : undefined;
}
