// A warehouse delivery: an outcome scored over the Leads cohort, written to a Postgres table through a
// connection whose password stays secret in state.
import * as pulumi from "@pulumi/pulumi";
import * as audience from "pulumi-audience";

const config = new pulumi.Config();
const leads = audience.getCohortOutput({ name: "Leads" });
const customers = audience.getCohortOutput({ name: "Customers" });

const warehouse = new audience.Connection("warehouse", {
  name: "Analytics warehouse",
  options: {
    type: "postgres",
    host: config.get("warehouseHost") ?? "warehouse.example.com",
    port: 5432,
    database: "analytics",
    schema: "audience",
    user: "audience_delivery",
    password: config.requireSecret("warehousePassword"),
  },
});

const willBuy = new audience.Outcome("will-buy", {
  name: "Lead becomes a customer",
  eligibleCohortId: leads.id,
  attainmentCohortId: customers.id,
});

const scope = new audience.Scope("lead-scoring", {
  name: "Lead scoring",
  population: { cohortIds: [leads.id] },
  payload: { outcomeIds: [willBuy.id] },
  preview: true,
});

const delivery = new audience.Target("lead-scoring-table", {
  name: "Lead scoring table",
  scopeId: scope.id,
  connectionId: warehouse.id,
  representation: { mode: "identified" },
  options: { type: "postgres", tableName: "lead_scores" },
});

export const connectionId = warehouse.id;
export const targetId = delivery.id;
export const deliveryStatus = delivery.status;
