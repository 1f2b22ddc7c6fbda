// A resource whose `adoptId` names nothing in the account any more (deleted by hand after it was adopted, or never
// there): the plan warns and the create makes a new one, for a family the service lets us create. One the service
// manages cannot be adopted.
import type { FamilyDef } from "pulumi-audience/sdk/contract";

/** What happens, in the words of the program's `adoptId`. */
export function adoptionGone(family: FamilyDef, adoptId: string): string {
  const gone = `adoptId ${adoptId} names no ${family.className} in the account (deleted outside the program?)`;
  return family.creatable
    ? `${gone}: a new ${family.className} is created in its place; remove adoptId from the program to stop this warning`
    : `${gone}, and a ${family.className} cannot be created through the API: give the adoptId of an existing one`;
}


/** Why a resource the service manages (read-only to every key) cannot be adopted, and what uses it instead. */
export function managedAdoption(family: FamilyDef, adoptId: string): string {
  const instead = family.noLookup === undefined ? `; to use it, look it up instead: get${family.className}Output({ id: ${JSON.stringify(adoptId)} })` : "";
  return `${family.className} ${adoptId} is managed by the service and read-only: it refuses every change and delete, so a program cannot adopt it${instead}`;
}

/** What a plan says of a family the account has one of (insights), already there: the up takes it over. */
export function singletonTakeover(family: FamilyDef): string {
  return `${family.className}: the account has its own already (one per account); this up takes it over and brings it to the declared inputs, and a stack or program that also declares it changes the same one`;
}
