// Deprecated members and families, as the contract marks them, flagged with what replaces them.
import type { ResourceValidationPolicy } from "@pulumi/policy";
import { documentedMembers, type Collection, type FamilyDef } from "../../sdk/contract/index.ts";
import { audienceResource, named, programPath, valuesAtPath } from "../resources.ts";

const deprecatedMembers = new Map<Collection, { path: string; replacement: string }[]>();

/** The create members a family's docs mark deprecated, with their replacement, read once per family. */
function deprecatedOf(collection: Collection, family: FamilyDef): { path: string; replacement: string }[] {
  let found = deprecatedMembers.get(collection);
  if (!found) {
    found = documentedMembers(collection, family, family.create).flatMap((m) => (m.deprecated === undefined ? [] : [{ path: m.path, replacement: m.deprecated }]));
    deprecatedMembers.set(collection, found);
  }
  return found;
}

export const noDeprecated: ResourceValidationPolicy = {
  name: "audience-no-deprecated",
  description: "Members and resource families the service keeps only for compatibility (placeConditions, referenceDatasetId, modelingFields, Place, ...) are flagged with what replaces them.",
  enforcementLevel: "advisory",
  validateResource: (args, reportViolation) => {
    const resource = audienceResource(args);
    if (!resource) return;
    if (resource.family.deprecated !== undefined) {
      reportViolation(`${named(resource)}: ${resource.family.className} is deprecated. ${resource.family.deprecated}`);
    }
    for (const { path, replacement } of deprecatedOf(resource.collection, resource.family)) {
      // Set (even to a value not known yet) is enough: the member is written in the program.
      for (const { at } of valuesAtPath(resource.wire, path)) {
        reportViolation(`${named(resource)}: ${programPath(resource, at)} is deprecated. ${replacement}`);
      }
    }
  },
};
