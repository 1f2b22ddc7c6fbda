// What a step asks of a resource provider and what it answers, wherever the provider runs (a process spoken to over
// gRPC, or the engine's own process). The ground floor of the engine's provider rooms: it names no host.
import type { PropertyMap } from "../protocol/values.ts";

export interface CheckResult {
  inputs: PropertyMap;
  /** `code`: what kind of failure (ProviderError.code), when it is not the inputs' own. */
  failures: { property: string; reason: string; code?: string }[];
}

export interface DiffResult {
  changes: "some" | "none" | "unknown";
  replaces: string[];
  deleteBeforeReplace: boolean;
  /** The top-level properties that change, when the provider names them. */
  diffs?: string[];
  /** Property path -> kind of change (`UPDATE`, `ADD_REPLACE`, ...), when the provider answers a detailed diff. */
  detailed?: Record<string, string>;
  /** The property paths whose change forces the replacement (`options.type`), when the provider tells them apart. */
  forcing?: string[];
}

/** What create, update and delete pass on: the resource's customTimeouts (seconds) and whether this is a preview. */
export interface WriteOptions {
  timeout?: number;
  preview?: boolean;
}

/** The resource calls a step makes, wherever the provider runs. */
export interface ResourceCalls {
  check(urn: string, olds: PropertyMap, news: PropertyMap): Promise<CheckResult>;
  /** Diff; without `oldInputs` the provider compares with the old outputs. */
  diff(id: string, urn: string, oldOutputs: PropertyMap, news: PropertyMap, oldInputs: PropertyMap | undefined, ignoreChanges: string[]): Promise<DiffResult>;
  create(urn: string, inputs: PropertyMap, options?: WriteOptions): Promise<{ id: string; outputs: PropertyMap }>;
  /**
   * Reads the live resource; a missing id in the answer means it no longer exists. Without `outputs` and `inputs`
   * it reads by the id alone, as an import does.
   */
  read(id: string, urn: string, outputs?: PropertyMap, inputs?: PropertyMap): Promise<{ id: string; outputs: PropertyMap; inputs?: PropertyMap }>;
  update(id: string, urn: string, oldOutputs: PropertyMap, news: PropertyMap, oldInputs: PropertyMap | undefined, options?: WriteOptions): Promise<PropertyMap>;
  delete(id: string, urn: string, outputs: PropertyMap, oldInputs?: PropertyMap, options?: Pick<WriteOptions, "timeout">): Promise<void>;
}
