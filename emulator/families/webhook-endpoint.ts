// Webhook endpoints: the signing secret derives from the endpoint's id (emulator/webhooks.ts); the API only
// shows it masked, the control plane shows it to tests.
import { SECRET_PLACEHOLDER } from "pulumi-audience/sdk/contract";
import { notFound } from "../errors.ts";
import type { EmulatorFamily } from "./family.ts";

export const webhookEndpoint: EmulatorFamily = {
  onCreate: () => ({ secret: SECRET_PLACEHOLDER }),
  routes(app, ctx) {
    app.get<{ Params: { id: string } }>("/_emulator/webhook_endpoints/:id/secret", { config: { public: true } }, (request, reply) => {
      if (!ctx.state.resource("webhook_endpoints", request.params.id)) throw notFound(`No webhook endpoint with id ${request.params.id} exists`);
      return reply.send({ secret: ctx.webhooks.secret(request.params.id) });
    });
  },
};
