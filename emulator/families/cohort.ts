// Cohorts: every account starts with the classic Leads and Customers; the rules that read the account's streams
// (date operators only on date properties, numeric comparisons never on them; only new or changed conditions are
// judged, as the service does); the member counts a build fills from the synthetic world, and the membership
// analysis.
import { judgedStreamConditions, streamConditionErrors, streamPropertyTypes } from "pulumi-audience/sdk/contract";
import type { ContextRule, EmulatorFamily } from "../family.ts";
import { cohortMembership } from "../outputs/analysis.ts";
import { analysisEndpoint } from "../outputs/http.ts";
import { resourcesOf } from "../outputs/worlds.ts";
import { cohortMembers, countMembers } from "../world/cohorts.ts";

const cohortStreamConditions: ContextRule = ({ state, accountId, doc, previous }) => {
  if (judgedStreamConditions(doc, previous).length === 0) return [];
  const docs = (collection: string) => state.resources(accountId, collection).map((r) => r.doc);
  return streamConditionErrors(doc, previous, streamPropertyTypes(String(doc.stream_name), docs("streams"), docs("datasets")));
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
