// The service contract: one module per resource family, all registered here.
export * from "./common.ts";
export * from "./naming.ts";
export * from "./merge-patch.ts";
export * from "./location.ts";
export * from "./conditions.ts";
export * from "./scope.ts";
export * from "./target.ts";
export * from "./cohort.ts";
export * from "./forecast.ts";
export * from "./connection.ts";
export * from "./outcome.ts";
export * from "./persona-set.ts";

import type { FamilyDef } from "./common.ts";
import { cohort } from "./cohort.ts";
import { connection } from "./connection.ts";
import { forecast } from "./forecast.ts";
import { outcome } from "./outcome.ts";
import { personaSet } from "./persona-set.ts";
import { scope } from "./scope.ts";
import { target } from "./target.ts";

/** Every resource family of the service, keyed by collection name (the `resource_type`). */
export const families = {
  scopes: scope,
  targets: target,
  cohorts: cohort,
  forecasts: forecast,
  connections: connection,
  outcomes: outcome,
  persona_sets: personaSet,
} as const satisfies Record<string, FamilyDef>;

export type Collection = keyof typeof families;
