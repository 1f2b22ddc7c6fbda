// Breaks each rule of the policy pack once, with the pack config of test/policy/pack-cli.test.ts.
import * as audience from "pulumi-audience";

const leads = audience.getCohortOutput({ name: "Leads" });

// audience-credentials-from-secrets: a password written in the program.
new audience.Connection("warehouse", {
  name: "growth-warehouse",
  options: { type: "postgres", host: "db.internal", port: 5432, database: "crm", schema: "public", user: "loader", password: "hunter2" },
});
// audience-scope-created-in-preview and audience-naming.
const scope = new audience.Scope("pipeline", {
  name: "Pipeline One",
  population: { cohortIds: [leads.id] },
  payload: { cohortIds: [leads.id] },
  preview: false,
});
// audience-account-quota: a second scope, over the quota of one.
new audience.Scope("second", { name: "growth-second", population: { cohortIds: [leads.id] }, payload: { cohortIds: [leads.id] }, preview: true });
// audience-identified-delivery-allowed-destinations and audience-no-imputed-identified.
new audience.Target("export", {
  name: "growth-export",
  scopeId: scope.id,
  representation: { mode: "identified", imputePayload: ["attributes"] },
  options: { type: "hosted_csv" },
});
// audience-no-deprecated.
new audience.Cohort("buyers", { name: "growth-buyers", streamName: "orders", placeConditions: [{ place_id: "hq" }] });
