// Cohorts: every account starts with the classic Leads and Customers; the rules that read the account's streams
// (date operators only on date properties, numeric comparisons never on them; only new or changed conditions are
// judged, as the service does); the member counts a build fills from the synthetic world, and the membership
// analysis.
import { checkStreamConditions, isObject, jsonEqual, type StreamCondition, type StreamPropertyType } from "pulumi-audience/sdk/contract";
import type { ContextRule, EmulatorFamily } from "../family.ts";
import { cohortMembership } from "../outputs/analysis.ts";
import { analysisEndpoint } from "../outputs/http.ts";
import { resourcesOf } from "../outputs/worlds.ts";
import type { ServiceState } from "../state.ts";
import { cohortMembers, countMembers } from "../world/cohorts.ts";

const TYPES = new Set<string>(["boolean", "long", "double", "string", "date", "datetime"]);

/** Property types of a stream as its datasets declare them (and the stream itself reports them). */
function streamPropertyTypes(state: ServiceState, accountId: string, streamName: string): Record<string, StreamPropertyType> {
  const types: Record<string, StreamPropertyType> = { datetime: "date" };
  const note = (property: string, type: unknown) => {
    if (typeof type === "string" && TYPES.has(type)) types[property] = type as StreamPropertyType;
  };
  for (const stream of state.resources(accountId, "streams")) {
    if (stream.doc.name !== streamName) continue;
    const properties = stream.doc.properties;
    if (Array.isArray(properties)) for (const p of properties) if (isObject(p)) note(String(p.name), p.type);
    if (isObject(properties)) for (const [name, p] of Object.entries(properties)) note(name, isObject(p) ? p.type : p);
  }
  for (const dataset of state.resources(accountId, "datasets")) {
    const streams = dataset.doc.output_to_streams;
    const mapping = isObject(streams) ? streams[streamName] : undefined;
    const dataMap = isObject(mapping) ? mapping.data_map : undefined;
    if (!isObject(dataMap)) continue;
    for (const [property, column] of Object.entries(dataMap)) {
      if (isObject(column)) note(property, column.type ?? (String(column.format ?? "").startsWith("date") || /yyyy/.test(String(column.format ?? "")) ? "date" : undefined));
    }
  }
  return types;
}

const cohortStreamConditions: ContextRule = ({ state, accountId, doc, previous }) => {
  const streamName = typeof doc.stream_name === "string" ? doc.stream_name : undefined;
  const conditions = Array.isArray(doc.stream_conditions) ? (doc.stream_conditions as StreamCondition[]) : [];
  if (!streamName || conditions.length === 0) return [];
  const unchanged = new Set<number>();
  if (previous && previous.stream_name === streamName && Array.isArray(previous.stream_conditions)) {
    conditions.forEach((c, i) => {
      if ((previous.stream_conditions as unknown[]).some((p) => jsonEqual(p, c))) unchanged.add(i);
    });
  }
  return checkStreamConditions(conditions, streamPropertyTypes(state, accountId, streamName))
    .filter((e) => !unchanged.has(Number(/^stream_conditions\[(\d+)\]/.exec(e.path)?.[1])));
};

export const cohort: EmulatorFamily = {
  collection: "cohorts",
  seed(state, account) {
    for (const name of ["Leads", "Customers"]) {
      state.insert(account.id, "cohorts", { name, explore: false, classic: true, managed: true, status: "ready" });
    }
  },
  rules: [cohortStreamConditions],
  build(ctx, resource) {
    const world = ctx.worldOf(resource.account_id);
    return countMembers(world, cohortMembers(world, resource.doc, resourcesOf(ctx.resources, resource.account_id)));
  },
  ...analysisEndpoint("cohorts", "analysis/membership", cohortMembership, "A cohort's membership over time"),
};
