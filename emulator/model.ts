// The ground floor of the emulator: what the state keeps (accounts, resources as wire documents, mail) and what
// it reads of a collection to keep its resources, as types every other module builds on. It imports nothing of
// the emulator, so no module above it is named back.
import type { Reference } from "pulumi-audience/sdk/contract";

export type Doc = Record<string, unknown>;

export interface Account {
  id: string;
  name: string;
  parent_id: string | null;
  owner_email: string;
  /** Maximum number of resources per collection; collections not named use DEFAULT_QUOTA. */
  quotas: Record<string, number>;
  /** Early-access features, e.g. "forecasts". */
  early_access: string[];
  identity_graph: string | null;
  contract_started_at: string;
  created_at: string;
  updated_at?: string;
  branding?: Record<string, unknown> | null;
  /** Set by DELETE /accounts/{id}: deletion happens after a waiting period. */
  deletion_requested_at?: string;
}

export interface BuildState {
  /** Epoch ms at which the build takes its next step; absent when it waits for a manual advance. */
  due?: number;
  /** Total duration of a timed build in ms. */
  duration?: number;
  /** A timed build waiting for its upstream. */
  held?: boolean;
}

export interface StoredResource {
  account_id: string;
  collection: string;
  doc: Doc;
  build?: BuildState;
}

export interface OutboxMessage {
  id: string;
  account_id: string;
  to: string;
  subject: string;
  text: string;
  resource_type: string;
  resource_id: string;
  sent_at: string;
}

/** What a finished build announces to webhook endpoints. */
export type BuildEvent = "resource.errored" | "resource.ready_with_update";

/**
 * What the state reads of a collection's family to keep its resources: the members it masks and indexes, and who
 * besides the owning account may use them. The family registry answers it; the state knows no family.
 */
export interface KeptFamily {
  secrets: readonly string[];
  references: readonly Reference[];
  emulator: { sharedWith?(doc: Doc, accountId: string): boolean };
}

export interface KeptFamilies {
  /** The family of a collection name, or undefined for a collection the contract does not have. */
  of(collection: string): KeptFamily | undefined;
}
