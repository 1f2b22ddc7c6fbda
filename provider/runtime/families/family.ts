// What the provider knows about one resource family beyond its contract: which outputs are secret, the inputs it
// handles itself, and the lifecycle steps it does its own way. The generic lifecycle calls these; a family needs
// nothing from the lifecycle, only what this module defines.
import type { AudienceClient } from "pulumi-audience/sdk/client";
import { camelKey, type FamilyDef } from "pulumi-audience/sdk/contract";

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
  /** Creates the resource from its extra inputs: its id and the service's answer. Replaces POST of the body. */
  create?(calls: Calls, extras: Props): Promise<{ id: string; response: Props }>;
  /** The service's answer for the resource, or undefined when it is gone. Replaces GET by id. */
  find?(calls: Calls, id: string, recorded: Props): Promise<Props | undefined>;
  /** Applies changed inputs: the service's new answer, or undefined when nothing needs sending. Replaces PATCH. */
  update?(calls: Calls, id: string, inputs: ExtraInputs): Promise<Props | undefined>;
  /** Changes and replacements the generic comparison cannot see; added to it. */
  diff?(inputs: ExtraInputs): Promise<{ changed: string[]; replaces: string[] }>;
  /**
   * Runs after a create, adopt or update with the declared extra inputs and the service's answer; returns the
   * answer to record (e.g. re-read after naming personas).
   */
  afterWrite?(calls: Calls, id: string, extras: Props, response: Props): Promise<Props>;
  /** Extra outputs derived from the answer and the declared extras, compared by diff (e.g. persona names). */
  extraOutputs?(extras: Props, response: Props): Props;
}

export interface ProviderFamily extends Capabilities {
  family: FamilyDef;
  /** Top-level camelCase outputs that hold a credential somewhere inside: kept secret in state. */
  secretOutputs: readonly string[];
  /** Program inputs the service does not take in the resource body, handled by the family's own steps. */
  extraInputs: readonly string[];
  /** Outputs beyond the response members and the extra inputs (e.g. an upload's `sha256`). */
  extraOutputNames: readonly string[];
}

export type FamilyExtras = Partial<Pick<ProviderFamily, "extraInputs" | "extraOutputNames">> & Capabilities;

/** A provider family from a contract family: secret outputs follow from the contract's secret paths. */
export function defineProviderFamily(family: FamilyDef, extras: FamilyExtras = {}): ProviderFamily {
  const secretOutputs = [...new Set(family.secrets.map((path) => camelKey(path.split(/[.[]/)[0] ?? path)))];
  return { family, secretOutputs, extraInputs: [], extraOutputNames: [], ...extras };
}
