// The service contract: one module per resource family, all registered here.
export * from "./common.ts";
export * from "./naming.ts";
export * from "./merge-patch.ts";
export * from "./location.ts";
export * from "./scope.ts";

import type { FamilyDef } from "./common.ts";
import { scope } from "./scope.ts";

/** Every resource family of the service, keyed by collection path segment. */
export const families = {
  scopes: scope,
} as const satisfies Record<string, FamilyDef>;

export type Collection = keyof typeof families;
