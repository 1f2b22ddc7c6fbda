// The review program (fixtures/review/index.ts) for the in-process runtime: the parts chosen by config, registered
// as the resource classes register them, each once what it takes an id of exists.
import { join } from "node:path";
import { UNKNOWN, type Value } from "../../provider/protocol/values.ts";
import { audienceResource, idOf } from "./audience-resources.ts";
import type { ProgramContext, Registered } from "./in-process-runtime.ts";

/** The program's folder (Pulumi.yaml; its index.ts when run as a process) and its stacks' passphrase. */
export const REVIEW_FIXTURE = join(import.meta.dirname, "fixtures", "review");
export const PASSPHRASE = "review passphrase";

/** A required config value, failing as `config.require` does. */
function required(value: Value | undefined, key: string): Value {
  if (value === undefined) throw new Error(`Missing required configuration variable "review:${key}"`);
  return value;
}

export async function reviewProgram({ config, monitor }: ProgramContext): Promise<Record<string, Value>> {
  const parts = (config.get("parts") ?? "").split(",");
  const ids: Record<string, Value> = {};

  let warehouse: Registered | undefined;
  if (parts.includes("connection")) {
    warehouse = await audienceResource(monitor, "connections", "warehouse", {
      name: "Warehouse",
      options: {
        type: "postgres", host: config.get("host") ?? "db1.example.com", port: 5432, database: "analytics", schema: "audience", user: "delivery",
        password: required(config.getSecret("password"), "password"),
      },
    });
    const options = warehouse.outputs["options"] as Record<string, Value> | undefined;
    ids["connectionHost"] = warehouse.unknown ? UNKNOWN : (options?.["host"] ?? "");
  }

  if (parts.includes("pipeline")) {
    const cohort = await audienceResource(monitor, "cohorts", "buyers", { name: "Buyers", streamName: "transactions", streamConditions: [{ property: "amount", _gte: 100 }] });
    const scope = await audienceResource(monitor, "scopes", "pipeline", {
      name: "Pipeline", population: { cohortIds: [idOf(cohort)] }, payload: { cohortIds: [idOf(cohort)] }, preview: true,
    }, { propertyDependencies: { population: [cohort.urn], payload: [cohort.urn] } });
    // `delivery=postgres` (with the connection) moves the target to a table: a change of options.type replaces it.
    const toTable = config.get("delivery") === "postgres" && warehouse;
    const delivery: Record<string, Value> = toTable ? { options: { type: "postgres", tableName: "audience" }, connectionId: idOf(warehouse!) } : { options: { type: "hosted_csv" } };
    const target = await audienceResource(monitor, "targets", "csv", { name: "CSV", scopeId: idOf(scope), representation: { mode: "identified" }, ...delivery }, {
      propertyDependencies: { scopeId: [scope.urn], ...(toTable ? { connectionId: [warehouse!.urn] } : {}) },
    });
    ids["cohortId"] = idOf(cohort);
    ids["targetId"] = idOf(target);
  }

  if (parts.includes("dataset")) {
    const dataset = await audienceResource(monitor, "datasets", "purchases", {
      name: "Purchases",
      identitySets: { primary: { email: "email" } },
      options: { type: "hosted_csv", uploadDirectory: "crm" },
      outputToStreams: { purchases: { dataMap: { datetime: { columnName: "date" }, amount: { columnName: "amount" } } } },
      outputToTraits: { loyalty_tier: { columnName: "tier" } },
    });
    ids["datasetId"] = idOf(dataset);
  }

  if (parts.includes("north")) {
    // A resource of the named account `north` (audience:accounts).
    const cohort = await audienceResource(monitor, "cohorts", "north-buyers", { account: "north", name: "North buyers", streamName: "transactions", streamConditions: [{ property: "amount", _gte: 100 }] });
    ids["northCohortId"] = idOf(cohort);
  }

  if (parts.includes("upload")) {
    // A local file, whose bytes may change while its path stays the same.
    const file = await audienceResource(monitor, "uploads", "people", { directory: "crm", filename: "people.csv", source: required(config.get("source"), "source") });
    ids["uploadId"] = idOf(file);
  }

  return { ids };
}
