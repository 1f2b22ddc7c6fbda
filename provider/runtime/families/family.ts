// What the provider knows about one resource family beyond its contract: which outputs are secret, the inputs it
// handles itself, and the lifecycle steps it does its own way. The generic lifecycle calls these; a family needs
// nothing from the lifecycle, only what this module defines.
import type { AudienceClient } from "pulumi-audience/sdk/client";
import { camelKey, type FamilyDef, type FieldError } from "pulumi-audience/sdk/contract";
import type { z } from "zod";

export type Props = Record<string, unknown>;

/** The service calls a family's own steps make, on the resource's account. */
export interface Calls {
  readonly client: AudienceClient;
}

export interface Failure {
  property: string;
  reason: string;
}

/** A declared resource's members the family handles itself (`extraInputs`), now and as last recorded. */
export interface ExtraInputs {
  /** The declared extra inputs. */
  extras: Props;
  /** The extra inputs recorded by the last step. */
  recordedExtras: Props;
  /** Everything the last step recorded. */
  recorded: Props;
}

/**
 * Steps a family does its own way, overriding or adding to the generic ones (pulumi-go-provider `infer` style).
 * Most families need none.
 */
export interface Capabilities {
  /** Failures of the declared extra inputs, by member; added to the generic checks. */
  check?(extras: Props): Failure[];
  /**
   * Failures of the declared resource that only the account can tell (a cohort's stream conditions against its
   * stream's property types, an upload's path already taken), by wire path: `wire` is the body, `extras` the extra
   * inputs. `before()`: the body as last recorded, undefined for a resource not yet recorded, for rules that judge
   * only what is new or changed (read on demand: a no-op checks every resource). Reads what it needs with `calls`;
   * `warn` tells the plan what may fail but cannot be known.
   */
  accountCheck?(calls: Calls, declared: { wire: Props; extras: Props }, before: () => Props | undefined, warn: (message: string) => void): Promise<FieldError[]>;
  /**
   * Creates the resource from its extra inputs: its id and the service's answer. Replaces POST of the body.
   * `startedAt`: when an earlier attempt of this create began (ms since the epoch), in a run interrupted before its
   * answer; what that attempt made is this resource.
   */
  create?(calls: Calls, extras: Props, attempt: { startedAt?: number }): Promise<{ id: string; response: Props }>;
  /** The service's answer for the resource, or undefined when it is gone. Replaces GET by id. */
  find?(calls: Calls, id: string, recorded: Props): Promise<Props | undefined>;
  /**
   * The extra inputs the resource's id and the service's answer tell (an upload's directory and filename), for a
   * read with none recorded: an import then records what a create would have. Recorded ones win.
   */
  readExtras?(id: string, response: Props): Props;
  /** Applies changed inputs: the service's new answer, or undefined when nothing needs sending. Replaces PATCH. */
  update?(calls: Calls, id: string, inputs: ExtraInputs): Promise<Props | undefined>;
  /**
   * Changes and replacements the generic comparison cannot see; added to it. `deleteBeforeReplace`: a replacement,
   * whatever forces it (`replaceOnChanges` too), must delete the old resource first, as when the new one would take
   * the old one's unique name.
   */
  diff?(inputs: ExtraInputs): Promise<{ changed: string[]; replaces: string[]; deleteBeforeReplace?: boolean }>;
  /**
   * Runs after a create, adopt or update with the declared extra inputs and the service's answer; returns the
   * answer to record (e.g. re-read after naming personas).
   */
  afterWrite?(calls: Calls, id: string, extras: Props, response: Props): Promise<Props>;
  /** Extra outputs derived from the answer and the declared extras, compared by diff (e.g. persona names). */
  extraOutputs?(extras: Props, response: Props): Props;
  /** Removes the resource; a resource already gone is no failure. Replaces DELETE by id. */
  delete?(calls: Calls, id: string): Promise<void>;
  /**
   * A digest of what the resource holds beyond its declared inputs (an upload's bytes, read from a `source` file),
   * recorded as one more input: check computes it from the declared inputs, read takes the service's. A plan and
   * refresh then show a change the declared inputs cannot (`md5Hash: "..." -> "..."`). Never sent.
   */
  digest?: {
    /** The input it is recorded as (camelCase), also the member of the answer it is compared with. */
    key: string;
    /** The digest the declared extra inputs would give the service. */
    declared(extras: Props): Promise<string>;
    /** The digest in the service's answer, if it gives one. */
    found(response: Props): string | undefined;
  };
}

/**
 * Resources the service makes on behalf of one of this family (a dataset's `outputToStreams` make streams): they
 * belong to their maker, so drift does not count them unmanaged, generate does not adopt them again, and delete
 * removes the ones its maker alone made.
 */
export interface Derived {
  /** The collection of the resources made. */
  collection: string;
  /** The names of the resources made, from the maker's outputs (camelCase, as recorded in state). */
  names(outputs: Props): string[];
}

export interface ProviderFamily extends Capabilities {
  family: FamilyDef;
  /**
   * camelCase paths of the outputs that hold a credential (`options.password`, `apiKey`): each is kept secret in
   * state on its own, so the members around it stay readable in plans and outputs.
   */
  secretOutputs: readonly string[];
  /** Program inputs the service does not take in the resource body, handled by the family's own steps. */
  extraInputs: readonly string[];
  /** The shape of the extra inputs (camelCase), for the package schema. */
  extraInputSchema?: z.ZodType;
  /** What the service makes for a resource of this family; none for most. */
  derives?: readonly Derived[];
}

export type FamilyExtras = Partial<Pick<ProviderFamily, "extraInputs" | "extraInputSchema" | "derives">> & Capabilities;

/** The names each resource of `outputs` has the service make, by collection (the maker's family from `providerFamily`). */
export function derivedNames(made: Iterable<{ providerFamily: ProviderFamily; outputs: Props }>): Map<string, Set<string>> {
  const names = new Map<string, Set<string>>();
  for (const { providerFamily, outputs } of made) {
    for (const derived of providerFamily.derives ?? []) {
      if (!names.has(derived.collection)) names.set(derived.collection, new Set());
      for (const name of derived.names(outputs)) names.get(derived.collection)!.add(name);
    }
  }
  return names;
}

/** `derive` made a function that computes each family's value once, on first use, and answers it after. */
export function perFamily<T>(derive: (providerFamily: ProviderFamily) => T): (providerFamily: ProviderFamily) => T {
  const kept = new WeakMap<ProviderFamily, { value: T }>();
  return (providerFamily) => {
    let entry = kept.get(providerFamily);
    if (!entry) kept.set(providerFamily, (entry = { value: derive(providerFamily) }));
    return entry.value;
  };
}

/** A provider family from a contract family: secret outputs are the contract's secret paths in camelCase. */
export function defineProviderFamily(family: FamilyDef, extras: FamilyExtras = {}): ProviderFamily {
  const secretOutputs = [...new Set(family.secrets.map((path) => path.split(".").map(camelKey).join(".")))];
  return { family, secretOutputs, extraInputs: [], ...extras };
}
