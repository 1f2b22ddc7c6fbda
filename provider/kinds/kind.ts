// What the provider knows about one resource family beyond its contract: the name a program uses, which
// outputs are secret, and the few family-specific steps the generic lifecycle calls.
import { camelKey, type FamilyDef } from "pulumi-audience/sdk/contract";
import type { z } from "zod";

/** One service call the family needs beyond create/get/update: used by the family's hooks. */
export interface Calls {
  /** A request relative to the base URL, answering the parsed JSON body (undefined when empty). */
  request(method: "GET" | "POST" | "PATCH" | "DELETE", path: string, body?: unknown): Promise<unknown>;
}

export interface Kind {
  /** Class name and type token suffix: `pulumi-nodejs:dynamic/audience:<name>`. */
  name: string;
  family: FamilyDef;
  /** Top-level camelCase outputs that hold a credential somewhere inside: kept secret in state. */
  secretOutputs: readonly string[];
  /**
   * Program inputs the service does not take in the resource body, handled by `afterWrite`
   * (e.g. a persona set's persona names).
   */
  extraInputs: readonly string[];
  /** The shape of the extra inputs (camelCase), for the package schema. */
  extraInputSchema?: z.ZodType;
  /**
   * Runs after a create, adopt or update with the declared extra inputs and the service's answer; returns the
   * answer to record (e.g. re-read after naming personas). Absent for most families.
   */
  afterWrite?: (calls: Calls, id: string, extras: Record<string, unknown>, response: Record<string, unknown>) => Promise<Record<string, unknown>>;
  /** `file`: the resource is a file's bytes (uploads), handled by its own small lifecycle. */
  body: "json" | "file";
  /** Outputs beyond the response members and the extra inputs (e.g. an upload's `sha256`). */
  extraOutputNames: readonly string[];
  /** Extra outputs derived from the answer and the declared extras, compared by diff (e.g. persona names). */
  extraOutputs?: (extras: Record<string, unknown>, response: Record<string, unknown>) => Record<string, unknown>;
}

/** A descriptor from a family: secret outputs follow from the contract's secret paths. */
export function defineKind(name: string, family: FamilyDef, extras: Partial<Omit<Kind, "name" | "family">> = {}): Kind {
  const secretOutputs = [...new Set(family.secrets.map((path) => camelKey(path.split(/[.[]/)[0] ?? path)))];
  return { name, family, secretOutputs, extraInputs: [], body: "json", extraOutputNames: [], ...extras };
}
