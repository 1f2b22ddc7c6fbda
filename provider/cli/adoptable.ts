// Which families a program may take over from an account: what `generate` writes and what `drift` reports as
// unmanaged when no program has it.
import { providerFamilies, type ProviderFamily } from "../runtime/families/index.ts";

/**
 * Resources a program creates through the API and can remove, listed whole by their collection. Not the service's
 * own (forecasts), files (uploads), singletons, parts owned by another resource (an atlas's locations), nor
 * accounts: deleting one is scheduled and ends a tenant, so a program's `destroy` must never hold one it did not
 * create.
 */
export function adoptable({ family: f }: ProviderFamily): boolean {
  return f.creatable && !f.singleton && (f.deletable || f.archivable) && f.deletion === "immediate" && !f.references.some((r) => r.owned);
}

export const ADOPTABLE: ProviderFamily[] = Object.values(providerFamilies).filter(adoptable);
