// Forecasts: the API cannot create them; an account with early access starts with `Forecasted spend`, and the
// control plane seeds more.
import { validate } from "pulumi-audience/sdk/contract";
import { z } from "zod";
import { notFound, validationFailed } from "../errors.ts";
import type { EmulatorFamily } from "../family.ts";
import type { ServiceState } from "../state.ts";

const forecastBody = z.strictObject({ name: z.string().min(1) });

const seedForecast = (state: ServiceState, accountId: string, name: string) =>
  state.insert(accountId, "forecasts", { name, managed: true, status: "ready" });

export const forecast: EmulatorFamily = {
  collection: "forecasts",
  seed(state, account) {
    if (account.early_access.includes("forecasts")) seedForecast(state, account.id, "Forecasted spend");
  },
  routes(app, ctx) {
    const { state } = ctx;
    app.post<{ Params: { id: string } }>("/_emulator/accounts/:id/forecasts", { config: { public: true } }, (request, reply) => {
      const parsed = validate(forecastBody, request.body);
      if (!parsed.ok) throw validationFailed(parsed.errors);
      if (!state.account(request.params.id)) throw notFound(`No account with id ${request.params.id} exists`);
      return reply.code(201).send(state.store.transaction(() => seedForecast(state, request.params.id, parsed.value.name)));
    });
  },
};
