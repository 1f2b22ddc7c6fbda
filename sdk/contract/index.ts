// The service contract: one module per resource family (its members, answers, docs and flags), each registered by
// one entry in `families` (registry.ts); the bodies, their types, the program types and both program faces follow
// from it. A family's module is re-exported here only when other code reads more of it than its definition.
export * from "./common.ts";
export * from "./naming.ts";
export * from "./merge-patch.ts";
export * from "./errors.ts";
export * from "./paths.ts";
export * from "./location.ts";
export * from "./conditions.ts";
export * from "./scope.ts";
export * from "./target.ts";
export * from "./cohort.ts";
export * from "./forecast.ts";
export * from "./atlas.ts";
export * from "./stream.ts";
export * from "./trait.ts";
export * from "./attribute.ts";
export * from "./persona-set.ts";
export * from "./outcome.ts";
export * from "./recommender.ts";
export * from "./dataset.ts";
export * from "./connection.ts";
export * from "./account.ts";
export * from "./webhook-endpoint.ts";
export * from "./migration.ts";
export * from "./audit.ts";
export * from "./use-case.ts";
export * from "./insights.ts";
export * from "./market-opportunity-analysis.ts";
export * from "./upload.ts";
export * from "./place.ts";
export * from "./actions.ts";
export * from "./docs.ts";
export * from "./field-docs.ts";
export * from "./registry.ts";
