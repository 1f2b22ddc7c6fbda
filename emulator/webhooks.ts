// Webhook deliveries: a build event (`resource.errored`, `resource.ready_with_update`) POSTed to an endpoint,
// signed with the endpoint's secret (HMAC-SHA256 over `${timestamp}.${body}`), and the log of attempts. Which
// endpoints hear which events is the webhook endpoint family's (emulator/families/webhook-endpoint.ts). Secrets
// derive from one key kept in memory, so they hold for the process's life without being stored per endpoint;
// the API answers them as `<secret>`, the control plane reveals them.
import { createHmac, randomBytes, randomUUID } from "node:crypto";
import type { BuildEvent, StoredResource } from "./model.ts";

export const SIGNATURE_HEADER = "webhook-signature";
export const TIMESTAMP_HEADER = "webhook-timestamp";
const DELIVERY_TIMEOUT_MS = 5000;
const LOG_LIMIT = 1000;

export interface Delivery {
  id: string;
  endpoint_id: string;
  url: string;
  event: BuildEvent;
  resource_type: string;
  resource_id: string;
  /** HTTP status the endpoint answered; null when it could not be reached. */
  status: number | null;
  error: string | null;
  at: string;
}

/** The signature a receiver recomputes: `sha256=` and the hex HMAC of `${timestamp}.${body}`. */
export function webhookSignature(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`;
}

export class Webhooks {
  private readonly log: Delivery[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  /** Derives every endpoint's signing secret; kept in memory only, so secrets hold for the process's life. */
  private readonly signingKey = randomBytes(32);

  /** The signing secret of an endpoint. */
  secret(endpointId: string): string {
    return `whsec_${createHmac("sha256", this.signingKey).update(endpointId).digest("base64url")}`;
  }

  deliveries(): Delivery[] {
    return [...this.log];
  }

  /** Waits for deliveries under way (for a clean close). */
  async settle(): Promise<void> {
    await Promise.all([...this.inFlight]);
  }

  /** Delivers one build event about `resource` to the endpoint `endpointId` at `url`, in the background. */
  deliver(event: BuildEvent, resource: Readonly<StoredResource>, endpointId: string, url: string): void {
    const body = JSON.stringify({
      id: randomUUID(), type: event, created_at: new Date().toISOString(), account_id: resource.account_id,
      data: {
        resource_type: resource.collection, resource_id: resource.doc.id, name: resource.doc.name ?? null, status: resource.doc.status,
        status_error: resource.doc.status_error ?? null, last_updated_output_at: resource.doc.last_updated_output_at ?? null,
      },
    });
    const delivery = this.send(endpointId, url, this.secret(endpointId), body, event, resource);
    this.inFlight.add(delivery);
    void delivery.finally(() => this.inFlight.delete(delivery));
  }

  private async send(endpointId: string, url: string, secret: string, body: string, event: BuildEvent, resource: Readonly<StoredResource>): Promise<void> {
    const timestamp = String(Math.floor(Date.now() / 1000));
    const record: Delivery = {
      id: randomUUID(), endpoint_id: endpointId, url, event, resource_type: resource.collection, resource_id: String(resource.doc.id),
      status: null, error: null, at: new Date().toISOString(),
    };
    try {
      const response = await fetch(url, {
        method: "POST", body, signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
        headers: { "content-type": "application/json", [TIMESTAMP_HEADER]: timestamp, [SIGNATURE_HEADER]: webhookSignature(secret, timestamp, body) },
      });
      record.status = response.status;
      await response.body?.cancel();
    } catch (error) {
      record.error = error instanceof Error ? error.message : String(error);
    }
    this.log.push(record);
    if (this.log.length > LOG_LIMIT) this.log.splice(0, this.log.length - LOG_LIMIT);
  }
}
