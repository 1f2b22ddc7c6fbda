// What the emulator knows of a family beyond the contract: a module whose capabilities are all optional, handed
// to the core at construction (emulator/families/index.ts lists them; registry.ts joins them to the contract's). A family without a module, or with an
// empty one, gets the generic behaviour of every layer; the core reads the rest from the contract.
import type { FastifyRequest } from "fastify";
import type { AccountFeature, Collection, FieldError } from "pulumi-audience/sdk/contract";
import type { EmulatorContext, RouteModule } from "./context.ts";
import type { Account, BuildEvent, Doc, StoredResource } from "./model.ts";
import type { OpenApiEntries } from "./openapi.ts";
import type { ServiceState } from "./state.ts";

/** A rule over a whole document in its account, for rules the body alone cannot decide. */
export type ContextRule = (input: { state: ServiceState; accountId: string; doc: Doc; previous?: Doc }) => FieldError[];

export interface EmulatorFamily {
  /** The contract's family this module adds to. */
  collection: Collection;
  /** Rules that read the account's other resources; run on create and on change. */
  rules?: readonly ContextRule[];
  /** Read-only members a new resource starts with. Default: none. */
  onCreate?(state: ServiceState, accountId: string, doc: Doc): Doc;
  /** The document a change stores, from the stored one and the merged body; may refuse. Default: the merged body. */
  onChange?(stored: Doc, merged: Doc): Doc;
  /** Members a build computes as it finishes; throwing fails the build. Default: none. */
  build?(ctx: EmulatorContext, resource: Readonly<StoredResource>): Doc | undefined;
  /** Called after any resource of the account fails its build or finishes a re-run (webhook endpoints deliver it). */
  onBuildEvent?(ctx: EmulatorContext, event: BuildEvent, resource: Readonly<StoredResource>): void;
  /** The account owner is mailed when a build finishes. Default: false. */
  mailOnReady?: boolean;
  /** Who besides the owning account may read and change a resource. Default: nobody. */
  sharedWith?(doc: Doc, accountId: string): boolean;
  /** Members computed for each answer (signed URLs, live statuses). Default: the stored document. */
  present?(ctx: EmulatorContext, request: FastifyRequest, doc: Doc): Doc;
  /** The resource a path key names when it is not an id (streams by name). Default: ids only. */
  findByKey?(state: ServiceState, accountId: string, key: string): StoredResource | undefined;
  /** Why `id` is not a resource a member may name, when the family is not kept as resources (accounts). */
  referenceError?(state: ServiceState, id: string): string | undefined;
  /** What a new account starts with of this family (classic cohorts). Default: nothing. */
  seed?(state: ServiceState, account: Account): void;
  /** The account feature a resource of this family gives its account (a feature store). Default: none. */
  accountFeature?: AccountFeature;
  /** The family's own routes, registered before the generic ones. */
  routes?: RouteModule;
  /** The largest body the family's own routes take, when larger than the service's usual limit (uploads). */
  bodyLimit?: number;
  /** The generic routes leave the family to its own (accounts, uploads). Default: false. */
  ownRoutesOnly?: boolean;
  /** /openapi.json describes the family with its own paths, not the generic CRUD (uploads). Default: false. */
  ownOpenApiPaths?: boolean;
  /** What /openapi.json says of the family's own routes. */
  openApi?(): OpenApiEntries;
}
