// Webhook endpoint: a URL the service signs and posts resource events to.
import { z } from "zod";
import { defineFamily } from "./family.ts";
import { expected, oneOf } from "./fields.ts";
import type { MemberDocs } from "./docs.ts";

export const WEBHOOK_EVENTS = ["resource.errored", "resource.ready_with_update"] as const;

const shape = {
  /** Webhook endpoints need no name; one may be given. */
  name: z.string().min(1, { error: "must be a non-empty string" }).optional(),
  // A URL parser drops line breaks and tabs silently; one sent with them is refused instead (a header smuggled in).
  url: z.string({ error: expected("an http(s) URL") })
    .refine((url) => !/[\s\p{Cc}]/u.test(url), { error: "must be an http(s) URL without spaces, line breaks or other control characters", abort: true })
    .url({ protocol: /^https?$/, error: expected("an http(s) URL") }),
  enabled_events: z.array(oneOf(WEBHOOK_EVENTS)).min(1, { error: `must name at least one event: ${WEBHOOK_EVENTS.join(", ")}` }),
  status: oneOf(["enabled", "disabled"]).default("enabled"),
  description: z.string().optional(),
};

const webhookEndpointAnswers = {
  name: z.string().nullish(),
  /** Signing key (`whsec_...`) for SHA-256 signatures; answered as `<secret>`. */
  secret: z.string().nullish(),
};

/** Field docs of webhook endpoints, by member path (see docs.ts). */
export const webhookEndpointDocs = {
  name: "A name for the endpoint (optional: endpoints need none).",
  url: "The http(s) URL deliveries are posted to.",
  enabled_events: "The events delivered; at least one.",
  status: "`disabled` pauses deliveries.",
  description: "What the endpoint is for.",
  secret: "Signing key (`whsec_...`) of the deliveries' SHA-256 signatures. The service never answers the key itself: this output is always the placeholder `<secret>` (kept secret); take the key from the service's console.",
} as const satisfies MemberDocs;

export const webhookEndpoint = defineFamily({
  name: "webhook_endpoint",
  className: "WebhookEndpoint",
  summary: "A URL that receives signed event deliveries, signed with a key the service keeps (its `secret` output is only the placeholder `<secret>`).",
  collection: "webhook_endpoints",
  shape,
  answers: webhookEndpointAnswers,
  docs: webhookEndpointDocs,
  secrets: ["secret"],
  builds: false,
  archivable: false,
});
