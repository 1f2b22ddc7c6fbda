// Every resource family the provider manages, keyed by collection: the contract's family plus the steps a few
// families do their own way.
import { families, type Collection, type FamilyDef } from "pulumi-audience/sdk/contract";
import { cohorts } from "./cohort.ts";
import { datasets } from "./dataset.ts";
import { defineProviderFamily, type FamilyExtras, type ProviderFamily } from "./family.ts";
import { migrations } from "./migration.ts";
import { personaSets } from "./persona-set.ts";
import { uploads } from "./upload.ts";

export * from "./family.ts";

/** Families with steps or derived resources of their own; the others are their contract and nothing else. */
const OWN_STEPS: Partial<Record<Collection, FamilyExtras>> = {
  cohorts,
  datasets,
  migrations,
  persona_sets: personaSets,
  uploads,
};

/** By collection name; without a prototype, so a name read from a state or a program (`"constructor"`) finds nothing. */
export const providerFamilies: Record<string, ProviderFamily> = Object.assign(Object.create(null) as Record<string, ProviderFamily>, Object.fromEntries(
  Object.entries(families as Record<Collection, FamilyDef>).map(([collection, family]) => [
    collection,
    defineProviderFamily(family, OWN_STEPS[collection as Collection]),
  ]),
));

/** The family named by a resource's `__kind` input. */
export function familyOf(collection: unknown): ProviderFamily {
  const found = typeof collection === "string" ? providerFamilies[collection] : undefined;
  if (!found) {
    throw new Error(`unknown resource family ${JSON.stringify(collection)}; this provider knows ${Object.keys(providerFamilies).join(", ")}`);
  }
  return found;
}
