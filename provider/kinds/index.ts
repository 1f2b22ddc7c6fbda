// Every resource family the provider manages, keyed by collection: the contract's family plus the name a
// program uses and the few family-specific steps.
import { families, type Collection, type FamilyDef } from "pulumi-audience/sdk/contract";
import { defineKind, type Kind } from "./kind.ts";
import { personaSetExtras } from "./persona-set.ts";
import { uploadInputs } from "./upload.ts";

export { defineKind, type Calls, type Kind } from "./kind.ts";

/** The class name of each family, as a program writes it. */
export const KIND_NAMES: Record<string, string> = {
  scopes: "Scope",
  targets: "Target",
  cohorts: "Cohort",
  atlases: "Atlas",
  streams: "Stream",
  traits: "Trait",
  attributes: "Attribute",
  feature_stores: "FeatureStore",
  persona_sets: "PersonaSet",
  outcomes: "Outcome",
  recommenders: "Recommender",
  datasets: "Dataset",
  connections: "Connection",
  webhook_endpoints: "WebhookEndpoint",
  market_opportunity_analyses: "MarketOpportunityAnalysis",
  migrations: "Migration",
  use_cases: "UseCase",
  audits: "ConfigurationAudit",
  uploads: "Upload",
  accounts: "Account",
  insights: "Insights",
  forecasts: "Forecast",
};

/** Family-specific parts of a descriptor; most families need none. */
const EXTRAS: Partial<Record<string, Partial<Omit<Kind, "name" | "family">>>> = {
  persona_sets: personaSetExtras,
  uploads: { body: "file", extraInputs: ["directory", "filename", "content", "source"], extraInputSchema: uploadInputs, extraOutputNames: ["sha256"] },
};

function pascal(collection: string): string {
  return collection.replace(/(?:^|_)([a-z])/g, (_m, c: string) => c.toUpperCase()).replace(/s$/, "");
}

export const kinds: Record<string, Kind> = Object.fromEntries(
  Object.entries(families as Record<Collection, FamilyDef>).map(([collection, family]) => [
    collection,
    defineKind(KIND_NAMES[collection] ?? pascal(collection), family, EXTRAS[collection]),
  ]),
);

/** The descriptor named by a resource's `__kind` input. */
export function kindOf(collection: unknown): Kind {
  const kind = typeof collection === "string" ? kinds[collection] : undefined;
  if (!kind) {
    throw new Error(`unknown resource family ${JSON.stringify(collection)}; this provider knows ${Object.keys(kinds).join(", ")}`);
  }
  return kind;
}
