// The order of a stack's resources: each after everything it needs to exist first (its parent, its provider, its
// dependencies), as Pulumi writes a state and as deletes run in reverse.
import type { ResourceState } from "./state-file.ts";

/** Stable order in which every resource comes after its parent, provider and dependencies. */
export function dependencyOrder(resources: ResourceState[]): ResourceState[] {
  const byUrn = new Map(resources.filter((r) => !r.delete).map((r) => [r.urn, r]));
  const placed = new Set<ResourceState>();
  const out: ResourceState[] = [];
  const visit = (r: ResourceState, path: Set<ResourceState>) => {
    if (placed.has(r) || path.has(r)) return;
    path.add(r);
    for (const urn of prerequisites(r)) {
      const dep = byUrn.get(urn);
      if (dep) visit(dep, path);
    }
    placed.add(r);
    out.push(r);
  };
  for (const r of resources) visit(r, new Set());
  return out;
}

/** URNs a resource needs to exist first: parent, provider, dependencies and property dependencies. */
export function prerequisites(r: ResourceState): string[] {
  const urns = [...r.dependencies, ...Object.values(r.propertyDependencies ?? {}).flat()];
  if (r.parent) urns.push(r.parent);
  if (r.provider) urns.push(r.provider.slice(0, r.provider.lastIndexOf("::")));
  return [...new Set(urns)];
}
