// Accounts, usage and billing: accounts are not documents of an account but the account records themselves,
// served by the routes here: the current account is the key's; a parent reads its sub-accounts.
import type { FastifyInstance, FastifyRequest } from "fastify";
import { applyMergePatch, families, SECRET_PLACEHOLDER, validate } from "pulumi-audience/sdk/contract";
import type { EmulatorContext } from "../context.ts";
import { forbidden, notFound, validationFailed } from "../errors.ts";
import type { EmulatorFamily } from "../family.ts";
import { ok, list, param } from "../openapi.ts";
import { USAGE_METRICS } from "../outputs/usage.ts";
import { idsFilter } from "../routes/paging.ts";
import { now, type Account } from "../state.ts";
import { insightsUsage } from "./insights.ts";

/** The control plane's quota that records an account's yearly contractual usage limit. */
const YEARLY_LIMIT_QUOTA = "usage.yearly_limit";

/** The account `id` names (`current`: the request's own), when the request's account may read it: itself or a sub-account. */
export function readableAccount(ctx: EmulatorContext, request: FastifyRequest, id: string): Account {
  const self = ctx.account(request);
  if (id === "current") return self;
  const target = ctx.state.account(id);
  if (!target) throw notFound(`No account with id ${id} exists`);
  if (!ctx.state.isSelfOrDescendant(self.id, target.id)) throw forbidden(`The account ${target.id} is neither this account nor one of its sub-accounts`);
  return target;
}

function routes(app: FastifyInstance, ctx: EmulatorContext): void {
  const { state } = ctx;

  const view = (a: Account) => ({
    id: a.id, name: a.name, resource_type: "accounts", parent_account_id: a.parent_id,
    api_key: SECRET_PLACEHOLDER, identity_graph: a.identity_graph, contract_started_at: a.contract_started_at,
    branding: a.branding ?? null, created_at: a.created_at, updated_at: a.updated_at ?? a.created_at, status: "ready",
    ...(a.deletion_requested_at ? { deletion_requested_at: a.deletion_requested_at } : {}),
  });

  const readable = (request: FastifyRequest<{ Params: { id: string } }>): Account => readableAccount(ctx, request, request.params.id);

  const tree = (self: Account) => state.accounts().filter((a) => state.isSelfOrDescendant(self.id, a.id));

  const usage = (a: Account) => {
    const counts = state.usage(a.id);
    const metrics = Object.fromEntries([...new Set([...USAGE_METRICS, ...Object.keys(counts)])].map((m) => [m, counts[m] ?? 0]));
    // Beside the counters, the limits they run against (spec: Limits 3).
    return { account_id: a.id, period_start: a.contract_started_at, period_end: now(), metrics, insights: insightsUsage(a.quotas, counts) };
  };

  app.get("/accounts", (request, reply) => {
    const ids = idsFilter(request.query);
    return reply.send(tree(ctx.account(request)).filter((a) => !ids || ids.has(a.id)).map(view));
  });
  app.get<{ Params: { id: string } }>("/accounts/:id", (request, reply) => reply.send(view(readable(request))));
  app.get<{ Params: { id: string } }>("/accounts/:id/usage", (request, reply) => reply.send(usage(readable(request))));
  app.get<{ Params: { id: string } }>("/accounts/:id/usage/all", (request, reply) => {
    const root = readable(request);
    const all = tree(root).map(usage);
    const metrics: Record<string, number> = {};
    for (const u of all) for (const [m, n] of Object.entries(u.metrics)) metrics[m] = (metrics[m] ?? 0) + n;
    // The yearly contractual limit (the account's quota `usage.yearly_limit`), only when one is on record.
    const limit = root.quotas[YEARLY_LIMIT_QUOTA];
    return reply.send({
      account_id: root.id, period_start: root.contract_started_at, period_end: now(), metrics,
      insights: insightsUsage(root.quotas, state.usage(root.id)), ...(limit !== undefined ? { limit } : {}), accounts: all,
    });
  });
  app.get<{ Params: { id: string } }>("/accounts/:id/billing", (request, reply) => {
    const u = usage(readable(request));
    return reply.send({ ...u, billable: Object.fromEntries(Object.entries(u.metrics).filter(([m]) => m !== "people_with_nearest_location")) });
  });
  app.get("/usages", (request, reply) => reply.send(tree(ctx.account(request)).map(usage)));

  const family = families.accounts;
  // A sub-account of the current account; its keys come from the control plane.
  app.post("/accounts", (request, reply) => {
    const parsed = validate(family.create, request.body, family.readOnly);
    if (!parsed.ok) throw validationFailed(parsed.errors);
    const body = parsed.value as { name: string; identity_graph?: string; branding?: Record<string, unknown> };
    const created = state.createAccount({ name: body.name, parent_id: ctx.account(request).id });
    const stored = { ...created, identity_graph: body.identity_graph ?? null, ...(body.branding ? { branding: body.branding } : {}) };
    state.store.transaction(() => state.store.set("account", created.id, stored));
    return reply.code(201).send(view(stored));
  });
  app.patch<{ Params: { id: string } }>("/accounts/:id", (request, reply) => {
    const target = readable(request);
    const parsed = validate(family.patch, request.body, family.readOnly);
    if (!parsed.ok) throw validationFailed(parsed.errors);
    // RFC 7396 all the way down: `{"branding": {"logo": null}}` removes the logo and keeps the rest of the branding.
    const members = applyMergePatch({ name: target.name, identity_graph: target.identity_graph, branding: target.branding }, request.body) as Pick<Account, "name" | "identity_graph" | "branding">;
    const { branding: _branding, ...rest } = target;
    const next: Account = {
      ...rest, updated_at: now(), name: members.name, identity_graph: members.identity_graph ?? null,
      ...(members.branding !== undefined ? { branding: members.branding } : {}),
    };
    state.store.transaction(() => state.store.set("account", target.id, next));
    return reply.send(view(next));
  });

  app.delete<{ Params: { id: string } }>("/accounts/:id", (request, reply) => {
    const target = readable(request);
    // Accounts are deleted after a waiting period: the request is recorded, the account keeps working.
    state.store.transaction(() => state.store.set("account", target.id, { ...target, deletion_requested_at: target.deletion_requested_at ?? now() }));
    return reply.code(202).send();
  });
}

export const account: EmulatorFamily = {
  collection: "accounts",
  ownRoutesOnly: true,
  routes,
  referenceError: (state, id) => (state.account(id) ? undefined : `names account ${id}, which does not exist`),
  openApi: () => ({
    paths: {
      "/accounts": { get: { summary: "The current account and its sub-accounts", responses: ok(list) } },
      "/accounts/{id}": { get: { summary: "An account (`current` is the key's)", parameters: [param()], responses: ok() } },
      "/accounts/{id}/usage": { get: { summary: "Usage metrics", parameters: [param()], responses: ok() } },
      "/accounts/{id}/usage/all": { get: { summary: "Usage rolled up over sub-accounts", parameters: [param()], responses: ok() } },
      "/accounts/{id}/billing": { get: { summary: "Billable usage", parameters: [param()], responses: ok() } },
    },
  }),
};
