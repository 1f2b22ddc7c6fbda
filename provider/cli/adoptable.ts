// Which families a program may take over from an account: what `generate` writes and what `drift` reports as
// unmanaged when no program has it.
import { kinds, type Kind } from "../kinds/index.ts";

/**
 * Resources a program creates and can remove, listed whole by their collection. Not the service's own (forecasts),
 * singletons, parts owned by another resource (an atlas's locations), files (uploads), nor accounts: deleting one
 * is scheduled and ends a tenant, so a program's `destroy` must never hold one it did not create.
 */
export function adoptable(kind: Kind): boolean {
  const f = kind.family;
  return kind.body === "json" && f.creatable && !f.singleton && (f.deletable || f.archivable) && f.deletion === "immediate"
    && !f.references.some((r) => r.owned);
}

export const ADOPTABLE: Kind[] = Object.values(kinds).filter(adoptable);
