// A scope is created in preview first: a scope the plan creates with `preview: false` is flagged.
import type { StackValidationPolicy } from "@pulumi/policy";
import { families } from "../../sdk/contract/index.ts";
import { audienceResource, named } from "../resources.ts";

export const scopeCreatedInPreview: StackValidationPolicy = {
  name: "audience-scope-created-in-preview",
  description: "A new scope is created as a preview (preview: true, limited rows, not billed) and enabled once its output looks right; one created with preview: false is flagged.",
  enforcementLevel: "advisory",
  // A stack policy: it sees each resource's outputs, and only a scope that exists has the service's `createdAt`
  // (a resource's own policy sees its inputs, the same for a create and an update).
  validateStack: (args, reportViolation) => {
    for (const found of args.resources) {
      const resource = audienceResource(found);
      if (resource?.family !== families.scopes) continue;
      if (typeof resource.props["createdAt"] === "string" || resource.props["adoptId"] !== undefined) continue;
      if (resource.wire["preview"] !== false) continue; // true, or not known yet
      reportViolation(`${named(resource)}: a new scope is created with preview: false; create it with preview: true, check its output, then set preview to false.`, found.urn);
    }
  },
};
