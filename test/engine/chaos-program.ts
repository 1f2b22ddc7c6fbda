// The chaos program (fixtures/chaos/index.ts) for the in-process runtime: `groups` sets of a pipeline's 20 resources,
// each with a name of its own, linked as a real pipeline is (a resource registers once what it takes an id of exists).
import type { Value } from "../../provider/protocol/values.ts";
import { audienceResource, idOf } from "./audience-resources.ts";
import type { ProgramContext, Registered } from "./in-process-runtime.ts";

export async function chaosProgram({ config, monitor }: ProgramContext): Promise<Record<string, Value>> {
  const groups = Number(config.get("groups") ?? 10);
  const password = config.getSecret("warehousePassword");
  if (password === undefined) throw new Error('Missing required configuration variable "chaos:warehousePassword"');
  /** Registers once `after` are registered, with the inputs made of their ids. */
  const linked = async (after: Promise<Registered>[], make: (ids: Registered[]) => Promise<Registered>) => make(await Promise.all(after));
  const all: Promise<Registered>[] = [];
  for (let g = 0; g < groups; g++) {
    const cohorts = [0, 1, 2, 3].map((i) => audienceResource(monitor, "cohorts", `cohort-${g}-${i}`, { name: `Chaos cohort ${g}.${i}`, streamName: "transactions", minCount: g * 4 + i + 1 }));
    const outcomes = [0, 1, 2].map((i) => linked([cohorts[i]!], ([c]) => audienceResource(monitor, "outcomes", `outcome-${g}-${i}`, {
      name: `Chaos outcome ${g}.${i}`, attainmentCohortId: idOf(c!),
    }, { propertyDependencies: { attainmentCohortId: [c!.urn] } })));
    const personas = [0, 1].map((i) => linked([cohorts[i + 1]!], ([c]) => audienceResource(monitor, "persona_sets", `personas-${g}-${i}`, {
      name: `Chaos personas ${g}.${i}`, cohortId: idOf(c!), numberOfClusters: 3,
    }, { propertyDependencies: { cohortId: [c!.urn] } })));
    const scopes = [0, 1, 2].map((i) => linked([cohorts[i]!, outcomes[i]!], ([c, o]) => audienceResource(monitor, "scopes", `scope-${g}-${i}`, {
      name: `Chaos scope ${g}.${i}`, population: { cohortIds: [idOf(c!)] }, payload: { outcomeIds: [idOf(o!)] }, preview: true,
    }, { propertyDependencies: { population: [c!.urn], payload: [o!.urn] } })));
    const connections = [0, 1].map((i) => audienceResource(monitor, "connections", `warehouse-${g}-${i}`, {
      name: `Chaos warehouse ${g}.${i}`,
      options: { type: "postgres", host: `db-${g}-${i}.example.com`, port: 5432, database: "analytics", schema: "audience", user: "delivery", password },
    }));
    const csvs = scopes.map((scope, i) => linked([scope], ([s]) => audienceResource(monitor, "targets", `csv-${g}-${i}`, {
      name: `Chaos CSV ${g}.${i}`, scopeId: idOf(s!), representation: { mode: "identified" }, options: { type: "hosted_csv" },
    }, { propertyDependencies: { scopeId: [s!.urn] } })));
    const table = linked([scopes[0]!, connections[0]!], ([s, c]) => audienceResource(monitor, "targets", `table-${g}`, {
      name: `Chaos table ${g}`, scopeId: idOf(s!), connectionId: idOf(c!), representation: { mode: "identified" }, options: { type: "postgres", tableName: `scores_${g}` },
    }, { propertyDependencies: { scopeId: [s!.urn], connectionId: [c!.urn] } }));
    const hooks = [0, 1].map((i) => audienceResource(monitor, "webhook_endpoints", `hook-${g}-${i}`, { url: `https://hooks.example.com/chaos/${g}/${i}`, enabledEvents: ["resource.errored"] }));
    all.push(...cohorts, ...outcomes, ...personas, ...scopes, ...connections, ...csvs, table, ...hooks);
  }
  await Promise.all(all);
  return {};
}
