// The pipeline every scenario delivers: everyone in the world, one outcome, identified rows in a hosted CSV.
import { memoryResources, type Doc } from "../emulator/world/resources.ts";

export const IDS = {
  everyone: "00000000-0000-4000-8000-00000000b001",
  buyers: "00000000-0000-4000-8000-00000000b002",
  outcome: "00000000-0000-4000-8000-00000000b003",
  scope: "00000000-0000-4000-8000-00000000b004",
  target: "00000000-0000-4000-8000-00000000b005",
};

export const cohorts: Doc[] = [
  { id: IDS.everyone, name: "Everyone" },
  { id: IDS.buyers, name: "Buyers", stream_name: "transactions" },
];
export const outcome: Doc = { id: IDS.outcome, name: "Will buy", attainment_cohort_id: IDS.buyers };
export const scope: Doc = { id: IDS.scope, name: "Pipeline", preview: false, population: { cohort_ids: [IDS.everyone] }, payload: { outcome_ids: [IDS.outcome] } };
export const target: Doc = {
  id: IDS.target, name: "Hosted", scope_id: IDS.scope, created_at: new Date().toISOString(),
  representation: { mode: "identified" }, options: { type: "hosted_csv" },
};

export const resources = () => memoryResources({ cohorts, outcomes: [outcome], scopes: [scope], targets: [target] });
