// Actions on one resource beyond CRUD: rotate a connection's credentials, rename a persona, apply an audit,
// and an account's audits read by its parent.
import type { FastifyInstance } from "fastify";
import { families, personaPatch, rotateCredentials, validate } from "pulumi-audience/sdk/contract";
import { fieldError, forbidden, notFound, validationFailed } from "../errors.ts";
import type { EmulatorContext } from "../context.ts";
import { now, type Doc } from "../state.ts";

export function register(app: FastifyInstance, ctx: EmulatorContext): void {
  const { state, builds } = ctx;

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

  app.patch<{ Params: { id: string; persona_id: string } }>("/persona_sets/:id/personas/:persona_id", (request, reply) => {
    const set = ctx.owned(request, "persona_sets", request.params.id);
    const parsed = validate(personaPatch, request.body);
    if (!parsed.ok) throw validationFailed(parsed.errors);
    const personas = (set.doc.personas ?? []) as Doc[];
    const persona = personas.find((p) => p.id === request.params.persona_id);
    if (!persona) throw notFound(`The persona set ${request.params.id} has no persona ${request.params.persona_id}`);
    persona.name = parsed.value.name;
    state.store.transaction(() => state.save({ ...set, doc: { ...set.doc, personas, updated_at: now() } }));
    return reply.send(persona);
  });

  // Applying records the outcome; this emulator's audits never propose changes, so nothing else moves.
  const apply = (request: Parameters<EmulatorContext["present"]>[0], accountId: string, auditId: string) => {
    const audit = state.resource("audits", auditId);
    if (!audit || audit.account_id !== accountId) throw notFound(`No audit ${auditId} exists for account ${accountId}`);
    const at = now();
    const changes = ((audit.doc.changes ?? []) as Doc[]).map((c) => ({ ...c, outcome: "applied", applied_at: at }));
    const applied = { ...audit, doc: { ...audit.doc, changes, applied_at: at, apply_outcome: "succeeded", updated_at: at } };
    state.store.transaction(() => state.save(applied));
    return ctx.present(request, applied);
  };
  const readableAccount = (request: Parameters<EmulatorContext["present"]>[0], id: string) => {
    const self = ctx.account(request);
    if (id === "current") return self.id;
    if (!state.account(id)) throw notFound(`No account with id ${id} exists`);
    if (!state.isSelfOrDescendant(self.id, id)) throw forbidden(`The account ${id} is neither this account nor one of its sub-accounts`);
    return id;
  };

  app.post<{ Params: { account: string; id: string } }>("/accounts/:account/audits/:id/apply", (request, reply) =>
    reply.code(202).send(apply(request, readableAccount(request, request.params.account), request.params.id)));
  app.get<{ Params: { account: string } }>("/accounts/:account/audits", (request, reply) =>
    reply.send(state.resources(readableAccount(request, request.params.account), "audits").map((a) => ctx.present(request, a))));
  app.get<{ Params: { account: string; id: string } }>("/accounts/:account/audits/:id", (request, reply) => {
    const accountId = readableAccount(request, request.params.account);
    const audit = state.resource("audits", request.params.id);
    if (!audit || audit.account_id !== accountId) throw notFound(`No audit ${request.params.id} exists for account ${accountId}`);
    return reply.send(ctx.present(request, audit));
  });
  app.post<{ Params: { account: string } }>("/accounts/:account/audits", (request, reply) => {
    const accountId = readableAccount(request, request.params.account);
    const family = families.audits;
    const parsed = validate(family.create, request.body ?? {}, family.readOnly);
    if (!parsed.ok) throw validationFailed(parsed.errors);
    const audit = state.store.transaction(() => {
      const inserted = state.insert(accountId, "audits", { ...(parsed.value as Doc), status: "new" });
      return builds.start(state.resource("audits", String(inserted.id))!);
    });
    return reply.code(202).send(ctx.present(request, audit));
  });
}
