// The calls the lifecycle makes, per family, on one account.
import type { FamilyDef } from "pulumi-audience/sdk/contract";
import type { Calls } from "../families/index.ts";
import type { Props } from "./shape.ts";

/** The generic calls, plus the SDK client a family's own steps use. */
export interface Service extends Calls {
  create(family: FamilyDef, body: Props): Promise<Props>;
  get(family: FamilyDef, id: string): Promise<Props>;
  /** Every resource of the family in the account. */
  list(family: FamilyDef): Promise<Props[]>;
  /** The resource, or undefined when the service no longer has it. */
  find(family: FamilyDef, id: string): Promise<Props | undefined>;
  /** Which of `ids` the account does not hold; the asks of one moment go out as one list per family. */
  missing(family: FamilyDef, ids: readonly string[]): Promise<string[]>;
  update(family: FamilyDef, id: string, patch: Props): Promise<Props>;
  /** Deletes; a resource already gone is not an error. */
  delete(family: FamilyDef, id: string): Promise<void>;
  /** Archives with the cascade options; a resource already gone is not an error. */
  archive(family: FamilyDef, id: string, body: Props): Promise<void>;
  /** Unarchives (everything upstream must be unarchived already). */
  unarchive(family: FamilyDef, id: string): Promise<void>;
}
