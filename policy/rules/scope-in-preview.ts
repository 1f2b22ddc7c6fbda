// A scope is created in preview first: a scope the plan creates with `preview: false` is flagged.
import type { StackValidationPolicy } from "@pulumi/policy";
import { families } from "../../sdk/contract/index.ts";
import { audienceResource, named, UNKNOWN } from "../resources.ts";

export const scopeCreatedInPreview: StackValidationPolicy = {
  name: "audience-scope-created-in-preview",
  description: "A new scope is created as a preview (preview: true, limited rows, not billed) and enabled once its output looks right; one the plan creates with preview: false is flagged.",
  enforcementLevel: "advisory",
  // What tells a create from an update: the analyzer hands a policy neither an id nor the old state, and in a
  // preview the planned outputs of an update are its inputs, as a create's are (with no `createdAt` either). Only a
  // plan that marks the service's `createdAt` as still to come (unknown) says the scope is made by this run; a scope
  // with no `createdAt` may exist already, and turning its preview off must pass.
  validateStack: (args, reportViolation) => {
    for (const found of args.resources) {
      const resource = audienceResource(found);
      if (resource?.family !== families.scopes) continue;
      if (resource.props["createdAt"] !== UNKNOWN || resource.props["adoptId"] !== undefined) continue;
      if (resource.wire["preview"] !== false) continue; // true, or not known yet
      reportViolation(`${named(resource)}: a new scope is created with preview: false; create it with preview: true, check its output, then set preview to false.`, found.urn);
    }
  },
};
