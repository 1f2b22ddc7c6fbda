// The control plane under /_emulator (never under /v1): reset, accounts and keys, build progression, faults,
// webhook deliveries, the outbox and the request log. It needs no API key; a family's own control routes (seeded
// forecasts, webhook secrets) are in its module (emulator/families).
import type { FastifyInstance } from "fastify";
import { families, validate } from "pulumi-audience/sdk/contract";
import { z } from "zod";
import { notFound, validationFailed } from "../errors.ts";
import { faultRules } from "../faults.ts";
import type { EmulatorContext } from "../context.ts";
import type { StoredResource } from "../state.ts";

const open = { config: { public: true } };

const MAX_BUILD_MS = 3_600_000;
const buildMode = z.union([z.enum(["immediate", "manual"]), z.number().int().nonnegative().max(MAX_BUILD_MS)],
  { error: `must be immediate, manual, or a duration in ms from 0 to ${MAX_BUILD_MS}` });
const accountBody = z.strictObject({
  name: z.string().min(1),
  parent_id: z.guid().optional(),
  quotas: z.record(z.string(), z.number().int().nonnegative()).optional(),
  /** Early access to forecasts: the account is seeded with the `Forecasted spend` forecast. */
  forecasts: z.boolean().default(false),
  owner_email: z.email().optional(),
});
/** The collections whose resources build: what `/builds` may set and `/builds/advance` may name. */
const BUILDING = Object.values(families).filter((f) => f.builds).map((f) => f.collection).sort();
const building = z.string().refine((c) => BUILDING.includes(c), { error: `must be a collection that builds: ${BUILDING.join(", ")}` });
const buildSettings = z.record(z.string().refine((k) => k === "default" || BUILDING.includes(k), { error: `must be default or a collection that builds: ${BUILDING.join(", ")}` }), buildMode);
/** A position in the request log: its `seq` numbers. */
const since = z.coerce.number({ error: "must be a whole number: a `seq` of the log" }).int({ error: "must be a whole number: a `seq` of the log" }).nonnegative();
const keyBody = z.strictObject({ expires_at: z.iso.datetime({ offset: true }).optional() }).optional();
export const advanceBody = z.strictObject({
  id: z.guid().optional(),
  collection: building.optional(),
  to: z.enum(["starting", "running", "ready", "error"]).optional(),
  error: z.string().optional(),
}).optional();

function parse<T extends z.ZodType>(schema: T, body: unknown): z.output<T> {
  const result = validate(schema, body);
  if (!result.ok) throw validationFailed(result.errors);
  return result.value;
}

export function register(app: FastifyInstance, ctx: EmulatorContext): void {
  const { state, builds, faults, requests } = ctx;
  const account = (id: string) => {
    const found = state.account(id);
    if (!found) throw notFound(`No account with id ${id} exists`);
    return found;
  };

  app.post("/_emulator/reset", open, (_request, reply) => {
    ctx.reset();
    return reply.code(204).send();
  });

  app.post("/_emulator/accounts", open, (request, reply) => {
    const body = parse(accountBody, request.body);
    if (body.parent_id !== undefined) account(body.parent_id);
    const created = state.store.transaction(() => {
      const a = state.createAccount({
        name: body.name, parent_id: body.parent_id ?? null, quotas: body.quotas ?? {},
        early_access: body.forecasts ? ["forecasts"] : [], ...(body.owner_email ? { owner_email: body.owner_email } : {}),
      });
      return { id: a.id, api_key: state.addKey(a.id) };
    });
    return reply.code(201).send(created);
  });

  app.post<{ Params: { id: string } }>("/_emulator/accounts/:id/keys", open, (request, reply) => {
    const body = parse(keyBody, request.body);
    const a = account(request.params.id);
    const key = state.store.transaction(() => state.addKey(a.id, undefined, body?.expires_at ?? null));
    return reply.code(201).send({ api_key: key, expires_at: body?.expires_at ?? null });
  });

  app.get("/_emulator/builds", open, (_request, reply) => reply.send({
    settings: builds.settings(),
    pending: builds.pending().map((r) => ({ id: r.doc.id, resource_type: r.collection, status: r.doc.status })),
  }));

  app.put("/_emulator/builds", open, (request, reply) => {
    const settings = parse(buildSettings, request.body);
    state.store.transaction(() => builds.configure(settings));
    return reply.send({ settings: builds.settings() });
  });

  app.post("/_emulator/builds/advance", open, (request, reply) => {
    const body = parse(advanceBody, request.body) ?? {};
    const chosen = () => builds.pending().filter((r: StoredResource) => (body.id === undefined || r.doc.id === body.id)
      && (body.collection === undefined || r.collection === body.collection));
    if (body.id !== undefined && chosen().length === 0) throw notFound(`No build in progress for ${body.id}`);
    const options = { ...(body.to ? { to: body.to } : {}), ...(body.error !== undefined ? { error: body.error } : {}) };
    const moved = new Map<string, StoredResource>();
    state.store.transaction(() => {
      if (body.id !== undefined) {
        // A build named by id moves even while its upstream is still building.
        const [one] = chosen();
        if (one && builds.advance(one, { ...options, force: true })) moved.set(body.id, one);
        return;
      }
      // Every chosen build moves once, in dependency order; with `to`, until each gets there or waits.
      for (let progress = true; progress;) {
        progress = false;
        for (const r of chosen()) {
          if ((!body.to && moved.has(String(r.doc.id))) || !builds.advance(r, options)) continue;
          moved.set(String(r.doc.id), r);
          progress = body.to !== undefined;
        }
      }
    });
    const advanced = [...moved.values()].map((r) => state.resource(r.collection, String(r.doc.id)) ?? r);
    return reply.send({ advanced: advanced.map((r) => ({ id: r.doc.id, resource_type: r.collection, status: r.doc.status })) });
  });

  app.get("/_emulator/faults", open, (_request, reply) => reply.send(faults.list()));
  app.put("/_emulator/faults", open, (request, reply) => {
    const body = parse(faultRules, request.body);
    faults.set(body.rules, body.seed);
    return reply.send(faults.list());
  });
  app.delete("/_emulator/faults", open, (_request, reply) => {
    faults.set([]);
    return reply.code(204).send();
  });

  app.get("/_emulator/webhooks/deliveries", open, (_request, reply) => reply.send(ctx.webhooks.deliveries()));

  app.get("/_emulator/outbox", open, (request, reply) => {
    const accountId = (request.query as { account_id?: string }).account_id;
    return reply.send(state.outbox().filter((m) => accountId === undefined || m.account_id === accountId));
  });

  app.get("/_emulator/requests", open, (request, reply) => {
    const q = request.query as { method?: string; path?: string; since?: string };
    return reply.send(requests.list({
      ...(q.method ? { method: q.method } : {}), ...(q.path ? { path: q.path } : {}),
      ...(q.since ? { since: parse(z.strictObject({ since }), { since: q.since }).since } : {}),
    }));
  });
  app.delete("/_emulator/requests", open, (_request, reply) => {
    requests.clear();
    return reply.code(204).send();
  });
}
