// The emulator's families: every family of the contract, with what it does beyond the generic behaviour.
// A family without quirks is not listed; one with quirks has its module here and one line below.
import { families, type Collection, type FamilyDef } from "pulumi-audience/sdk/contract";
import { account } from "./account.ts";
import { atlas } from "./atlas.ts";
import { audit } from "./audit.ts";
import { cohort } from "./cohort.ts";
import { connection } from "./connection.ts";
import { dataset } from "./dataset.ts";
import type { EmulatorFamily } from "./family.ts";
import { migration } from "./migration.ts";
import { personaSet } from "./persona-set.ts";
import { scope } from "./scope.ts";
import { stream } from "./stream.ts";
import { target } from "./target.ts";
import { upload } from "./upload.ts";
import { webhookEndpoint } from "./webhook-endpoint.ts";

export { singular, type ContextRule, type EmulatorFamily } from "./family.ts";

/** Outcomes and recommenders, like persona sets, do not build while `preview` is true. */
const heldByPreview: EmulatorFamily = { previewHoldsBuild: true };

const quirks: Partial<Record<Collection, EmulatorFamily>> = {
  accounts: account,
  atlases: atlas,
  audits: audit,
  cohorts: cohort,
  connections: connection,
  datasets: dataset,
  migrations: migration,
  outcomes: heldByPreview,
  persona_sets: personaSet,
  recommenders: heldByPreview,
  scopes: scope,
  streams: stream,
  targets: target,
  uploads: upload,
  webhook_endpoints: webhookEndpoint,
};

/** A family of the contract with its emulator behaviour. */
export type Family = FamilyDef & { emulator: EmulatorFamily };

const all = new Map<string, Family>(Object.entries(families as Record<string, FamilyDef>).map(([collection, def]) => [
  collection, { ...def, emulator: quirks[collection as Collection] ?? {} },
]));

/** The family of a collection name, or undefined for a collection the contract does not have. */
export function familyOf(collection: string): Family | undefined {
  return all.get(collection);
}

export function allFamilies(): Family[] {
  return [...all.values()];
}
