// Ids a program names that the account does not hold (a typo, another account's id, another kind of resource, one
// deleted by hand): found in check, so that a preview fails where the up would. Only ids new to the resource are
// asked, in one list per family for the checks of one moment, so a plan that changes no reference asks nothing.
import { families, valuesAt, type Collection, type FamilyDef } from "pulumi-audience/sdk/contract";
import type { CheckFailure } from "./check.ts";
import type { Service } from "./service.ts";
import { camelPath, UNKNOWN, type Props } from "./shape.ts";

export async function referenceFailures(serviceOf: () => Service, family: FamilyDef, wire: Props, recorded: () => Props | undefined): Promise<CheckFailure[]> {
  const named = family.references.flatMap((ref) => valuesAt(wire, ref.path).filter(({ value }) => value !== UNKNOWN).map((found) => ({ ...found, ref })));
  if (named.length === 0) return [];
  // Read only now: most resources name nothing, and a no-op checks every resource.
  const before = recorded();
  const asked = named.filter(({ value, ref }) => before === undefined || !valuesAt(before, ref.path).some((had) => had.value === value))
    .map(({ at, value, ref }) => ({ at, value, collection: ref.collection }));
  if (asked.length === 0) return [];
  const byCollection = new Map<string, typeof asked>();
  for (const ref of asked) byCollection.set(ref.collection, [...(byCollection.get(ref.collection) ?? []), ref]);
  try {
    const service = serviceOf();
    const missing = await Promise.all([...byCollection].map(async ([collection, refs]) => {
      const target = families[collection as Collection];
      const gone = new Set(await service.missing(target, refs.map((ref) => ref.value)));
      return refs.filter((ref) => gone.has(ref.value)).map((ref) => ({
        property: camelPath(family.create, ref.at),
        // Not the id itself: a program may pass it as a secret, which a dynamic provider receives as plain text.
        reason: `names a ${target.className} the account does not have: an id of another kind of resource or of another account, or of one deleted outside the program`,
      }));
    }));
    return missing.flat();
  } catch {
    // An account that cannot be asked (no key yet) or a list that fails decides nothing: the create or update meets
    // the same reference, or the same account, and says what it is.
    return [];
  }
}
