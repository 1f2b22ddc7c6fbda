// Keeps every rule of the policy pack, with the pack config of test/policy/pack-cli.test.ts.
import * as pulumi from "@pulumi/pulumi";
import * as audience from "pulumi-audience";

const config = new pulumi.Config();
const leads = audience.getCohortOutput({ name: "Leads" });

const warehouse = new audience.Connection("warehouse", {
  name: "growth-warehouse",
  options: { type: "snowflake", database: "crm", user: "loader", warehouse: "loading", password: config.requireSecret("warehousePassword") },
});
const scope = new audience.Scope("pipeline", {
  name: "growth-pipeline",
  population: { cohortIds: [leads.id] },
  payload: { cohortIds: [leads.id] },
  preview: true,
});
new audience.Target("export", {
  name: "growth-export",
  scopeId: scope.id,
  representation: { mode: "identified" },
  options: { type: "snowflake", tableName: "people" },
  connectionId: warehouse.id,
});
new audience.Target("hosted", { name: "growth-hosted", scopeId: scope.id, representation: { mode: "hashed" }, options: { type: "hosted_csv" } });
