// Webhook endpoint: a URL the service signs and posts resource events to.
import { z } from "zod";
import { body, expected, defineFamily, oneOf, patchOf, responseOf, type MergePatchOf } from "./common.ts";

export const WEBHOOK_EVENTS = ["resource.errored", "resource.ready_with_update"] as const;

const shape = {
  /** Webhook endpoints need no name; one may be given. */
  name: z.string().min(1, { error: "must be a non-empty string" }).optional(),
  url: z.url({ protocol: /^https?$/, error: expected("an http(s) URL") }),
  enabled_events: z.array(oneOf(WEBHOOK_EVENTS)).min(1, { error: `must name at least one event: ${WEBHOOK_EVENTS.join(", ")}` }),
  status: oneOf(["enabled", "disabled"]).default("enabled"),
  description: z.string().optional(),
};

export const webhookEndpointCreate = body(shape);
export const webhookEndpointPatch = patchOf(shape);
export const webhookEndpointResponse = z.object({
  ...responseOf(shape, {}).shape,
  name: z.string().nullish(),
  /** Signing key (`whsec_...`) for SHA-256 signatures; answered as `<secret>`. */
  secret: z.string().nullish(),
}).loose();
export type WebhookEndpointCreate = z.input<typeof webhookEndpointCreate>;
export type WebhookEndpointPatch = MergePatchOf<WebhookEndpointCreate>;
export type WebhookEndpointResponse = z.output<typeof webhookEndpointResponse>;

export const webhookEndpoint = defineFamily({
  name: "webhook_endpoint",
  className: "WebhookEndpoint",
  collection: "webhook_endpoints",
  create: webhookEndpointCreate,
  patch: webhookEndpointPatch,
  response: webhookEndpointResponse,
  secrets: ["secret"],
  builds: false,
  archivable: false,
});
