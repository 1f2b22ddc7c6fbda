// No identified (people-level) delivery to a destination outside the team's allow-list.
import type { ResourceValidationPolicy } from "@pulumi/policy";
import { families, HOSTED_TYPES, targetOptions } from "../../sdk/contract/index.ts";
import { audienceResource, isSecret, named, SECRET_TEXT, UNKNOWN } from "../resources.ts";

/** Every destination kind of a target, as the contract lists them. */
export const DESTINATION_KINDS: readonly string[] = targetOptions.options.map((variant) => variant.shape.type.value);

/** By default, the kinds that deliver into the team's own store (through a connection): not the hosted ones. */
export const DEFAULT_ALLOWED_DESTINATIONS: readonly string[] = DESTINATION_KINDS.filter((kind) => !(HOSTED_TYPES as readonly string[]).includes(kind));

export interface IdentifiedDeliveryConfig {
  /** Destination kinds (`options.type`) identified targets may deliver to. */
  allowedDestinations?: string[];
}

export const identifiedDeliveryAllowList: ResourceValidationPolicy = {
  name: "audience-identified-delivery-allowed-destinations",
  description: "A target delivering people in clear (representation mode identified) delivers only to a destination kind the team allows; hosted CSV files are downloadable by anyone holding their URL.",
  enforcementLevel: "mandatory",
  configSchema: {
    properties: {
      allowedDestinations: {
        type: "array",
        items: { type: "string", enum: [...DESTINATION_KINDS] },
        default: [...DEFAULT_ALLOWED_DESTINATIONS],
        description: "Destination kinds (a target's options.type) that may receive identified deliveries.",
      },
    },
  },
  validateResource: (args, reportViolation) => {
    const resource = audienceResource(args);
    if (resource?.family !== families.targets) return;
    const { allowedDestinations = DEFAULT_ALLOWED_DESTINATIONS } = args.getConfig<IdentifiedDeliveryConfig>();
    const representation = resource.wire["representation"];
    const options = resource.wire["options"];
    const mode = representation === UNKNOWN ? UNKNOWN : (representation as { mode?: unknown } | undefined)?.mode;
    const kind = options === UNKNOWN ? UNKNOWN : (options as { type?: unknown } | undefined)?.type;
    if (mode !== "identified" || typeof kind !== "string" || allowedDestinations.includes(kind)) return;
    // A kind the program marked secret is not told, not even whether it is a hosted one.
    const secret = isSecret(resource, "options.type");
    const hosted = !secret && (HOSTED_TYPES as readonly string[]).includes(kind) ? " (the service hosts it: anyone holding its URL or key reads it)" : "";
    const destination = secret ? SECRET_TEXT : kind;
    reportViolation(`${named(resource)}: representation.mode identified delivers people in clear to options.type ${destination}${hosted}, which is not among the allowed destinations (${allowedDestinations.join(", ") || "none"}); deliver hashed, referenced or aggregated, or to an allowed destination.`);
  },
};
