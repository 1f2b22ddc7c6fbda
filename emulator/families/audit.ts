// Configuration audits: a build lists the orphaned resources (nothing downstream uses them).
import type { Doc, ServiceState, StoredResource } from "../state.ts";
import type { EmulatorFamily } from "./family.ts";

/** Orphaned resources: nothing downstream uses them. */
function buildAudit(state: ServiceState, resource: StoredResource): Doc {
  const candidates = state.allResources(resource.account_id).filter((r) =>
    ["cohorts", "outcomes", "persona_sets", "recommenders", "scopes", "datasets", "connections"].includes(r.collection)
    && r.doc.archived_at == null && r.doc.managed !== true);
  const orphaned = candidates.filter((r) => state.downstreamOf(resource.account_id, String(r.doc.id)).length === 0)
    .map((r) => ({ resource_type: r.collection, resource_id: r.doc.id, name: r.doc.name ?? null }));
  const useCases = state.resources(resource.account_id, "use_cases").map((u) => ({ id: u.doc.id, name: u.doc.name, resources: [] }));
  return { changes: [], conflicts: [], orphaned_resources: orphaned, use_cases: useCases };
}

export const audit: EmulatorFamily = {
  build: (ctx, resource) => buildAudit(ctx.state, resource),
};
