// A stack over two accounts (the default one and `north`) for the drift tests: plain, nested, array and
// secret-holding members, a lookup of a cohort made by hand, and a member the program lets change (ignoreChanges).
// Declared inside a function: Pulumi's SDK takes a resource's position from stack frames that name a function,
// which top-level ESM code has not.
import * as pulumi from "@pulumi/pulumi";
import * as audience from "pulumi-audience";

function declare() {
  const config = new pulumi.Config();
  const leads = audience.getCohortOutput({ name: "Leads" });
  const shared = audience.getCohortOutput({ name: "Shared" });

  const kept = new audience.Cohort("kept", { name: "Kept" });
  const renamed = new audience.Cohort("renamed", { name: "Renamed", minCount: 2 });
  const tolerant = new audience.Cohort("tolerant", { name: "Tolerant", minCount: 2 }, { ignoreChanges: ["minCount"] });
  new audience.Cohort("doomed", { name: "Doomed" });
  new audience.Cohort("shelved", { name: "Shelved" });
  new audience.Scope("pipeline", {
    name: "Pipeline",
    population: { cohortIds: [kept.id, leads.id, shared.id] },
    payload: { cohortIds: [kept.id] },
    preview: true,
  });
  new audience.Connection("warehouse", {
    name: "Warehouse",
    options: { type: "postgres", host: "db", port: 5432, database: "d", schema: "s", user: "u", password: config.requireSecret("warehousePassword") },
  });
  new audience.Cohort("north-cohort", { account: "north", name: "North" });
  return { kept: kept.id, renamed: renamed.id, tolerant: tolerant.id };
}

export const ids = declare();
