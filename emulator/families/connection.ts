// Connections: whether one can also be read from is the service's to say, from its type; credentials rotate
// through their own action; a connection lists the targets delivering through it.
import { rotateCredentials, validate } from "pulumi-audience/sdk/contract";
import { fieldError, validationFailed } from "../errors.ts";
import type { EmulatorFamily } from "../family.ts";
import { input, json, list, ok, param, ref } from "../openapi.ts";
import { presentFiltered } from "../routes/paging.ts";
import { now, type Doc } from "../state.ts";

/** Connections that can only receive deliveries; every other kind can also be read from. */
const DESTINATION_ONLY = new Set(["hosted_csv", "lookup_api"]);

export const connection: EmulatorFamily = {
  collection: "connections",
  onCreate: (_state, _accountId, doc) => ({
    directionality: DESTINATION_ONLY.has(String((doc.options as Doc | undefined)?.type)) ? "destination_only" : "bidirectional",
    managed: false,
  }),
  routes(app, ctx) {
    const { state } = ctx;
    app.post<{ Params: { id: string } }>("/connections/:id/rotate_credentials", (request, reply) => {
      const connection = ctx.owned(request, "connections", request.params.id);
      const parsed = validate(rotateCredentials, request.body);
      if (!parsed.ok) throw validationFailed(parsed.errors);
      const type = (connection.doc.options as Doc | undefined)?.type;
      if (parsed.value.type !== type) {
        throw validationFailed([fieldError("type", `must be the connection's type (${String(type)})`, "invalid_value")]);
      }
      const at = now();
      const rotated = { ...connection, doc: { ...connection.doc, updated_at: at, credentials_rotated_at: at } };
      state.store.transaction(() => state.save(rotated));
      return reply.send(ctx.present(request, rotated));
    });

    app.get<{ Params: { id: string } }>("/connections/:id/targets", (request, reply) => {
      const connection = ctx.owned(request, "connections", request.params.id);
      const targets = state.resources(connection.account_id, "targets").filter((t) => t.doc.connection_id === connection.doc.id);
      return reply.send(presentFiltered(ctx, request, targets));
    });
  },
  openApi: () => ({
    schemas: { RotateCredentials: input(rotateCredentials) },
    paths: {
      "/connections/{id}/rotate_credentials": { post: { summary: "Rotate a connection's credentials", parameters: [param()], requestBody: { required: true, ...json(ref("RotateCredentials")) }, responses: ok() } },
      "/connections/{id}/targets": { get: { summary: "Targets delivering through a connection", parameters: [param()], responses: ok(list) } },
    },
  }),
};
