// Webhook endpoints: each enabled endpoint hears the build events it subscribes to, from every build of its
// account (emulator/webhooks.ts delivers them); the signing secret derives from the endpoint's id; the API only
// shows it masked, the control plane shows it to tests.
import { SECRET_PLACEHOLDER } from "pulumi-audience/sdk/contract";
import { notFound } from "../errors.ts";
import type { EmulatorFamily } from "../family.ts";

export const webhookEndpoint: EmulatorFamily = {
  collection: "webhook_endpoints",
  onCreate: () => ({ secret: SECRET_PLACEHOLDER }),
  onBuildEvent(ctx, event, resource) {
    for (const endpoint of ctx.state.eachResource(resource.account_id, "webhook_endpoints")) {
      const { id, url, status, enabled_events: events } = endpoint.doc;
      if (status !== "disabled" && Array.isArray(events) && events.includes(event)) ctx.webhooks.deliver(event, resource, String(id), String(url));
    }
  },
  routes(app, ctx) {
    app.get<{ Params: { id: string } }>("/_emulator/webhook_endpoints/:id/secret", { config: { public: true } }, (request, reply) => {
      if (!ctx.state.resource("webhook_endpoints", request.params.id)) throw notFound(`No webhook endpoint with id ${request.params.id} exists`);
      return reply.send({ secret: ctx.webhooks.secret(request.params.id) });
    });
  },
};
