// No imputed attributes in people-level deliveries: values guessed from cohabitants and neighbors, delivered as facts
// about named people.
import type { ResourceValidationPolicy } from "@pulumi/policy";
import { families } from "../../sdk/contract/index.ts";
import { audienceResource, named } from "../resources.ts";

export const noImputedIdentified: ResourceValidationPolicy = {
  name: "audience-no-imputed-identified",
  description: "A target delivering people in clear (identified) carries no imputed attributes (imputePayload: [\"attributes\"]): values inferred from cohabitants and neighbors would reach the destination as facts about named people.",
  enforcementLevel: "advisory",
  validateResource: (args, reportViolation) => {
    const resource = audienceResource(args);
    if (resource?.family !== families.targets) return;
    const representation = resource.wire["representation"] as { mode?: unknown; impute_payload?: unknown } | undefined;
    if (typeof representation !== "object" || representation === null || representation.mode !== "identified") return;
    const imputed = representation.impute_payload;
    if (!Array.isArray(imputed) || !imputed.includes("attributes")) return;
    reportViolation(`${named(resource)}: representation.imputePayload includes attributes on an identified delivery: values inferred from cohabitants and neighbors reach the destination as facts about named people; leave imputePayload out, or deliver hashed or aggregated.`);
  },
};
