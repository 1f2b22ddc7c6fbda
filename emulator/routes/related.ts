// Listings of resources related to one resource: a scope's datasets and cohorts, a connection's targets.
import type { FastifyInstance } from "fastify";
import type { EmulatorContext } from "../context.ts";
import type { Doc, StoredResource } from "../state.ts";
import { idsFilter } from "./paging.ts";

type Params = { id: string };

const ids = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : []);

export function register(app: FastifyInstance, ctx: EmulatorContext): void {
  const { state } = ctx;
  const cohorts = (accountId: string, wanted: string[]) =>
    state.resources(accountId, "cohorts").filter((c) => wanted.includes(String(c.doc.id)));
  const present = (request: Parameters<EmulatorContext["present"]>[0], list: StoredResource[]) => {
    const wanted = idsFilter(request.query);
    return list.filter((r) => !wanted || wanted.has(String(r.doc.id))).map((r) => ctx.present(request, r));
  };

  app.get<{ Params: Params }>("/scopes/:id/payload/cohorts", (request, reply) => {
    const scope = ctx.owned(request, "scopes", request.params.id);
    return reply.send(present(request, cohorts(scope.account_id, ids((scope.doc.payload as Doc | undefined)?.cohort_ids))));
  });

  app.get<{ Params: Params }>("/scopes/:id/population/exclusion_address_level_cohorts", (request, reply) => {
    const scope = ctx.owned(request, "scopes", request.params.id);
    return reply.send(present(request, cohorts(scope.account_id, ids((scope.doc.population as Doc | undefined)?.exclusion_address_level_cohort_ids))));
  });

  // A dataset is tied to a cohort when it feeds the cohort's stream or one of its traits.
  app.get<{ Params: Params }>("/scopes/:id/datasets", (request, reply) => {
    const scope = ctx.owned(request, "scopes", request.params.id);
    const population = (scope.doc.population ?? {}) as Doc;
    const members = cohorts(scope.account_id, [...ids(population.cohort_ids), ...ids(population.include)]);
    const streams = new Set(members.map((c) => c.doc.stream_name).filter((s): s is string => typeof s === "string"));
    const traits = new Set(members.flatMap((c) => (Array.isArray(c.doc.traits) ? (c.doc.traits as Doc[]).map((t) => String(t.name)) : [])));
    const datasets = state.resources(scope.account_id, "datasets").filter((d) =>
      Object.keys((d.doc.output_to_streams ?? {}) as Doc).some((s) => streams.has(s))
      || Object.keys((d.doc.output_to_traits ?? {}) as Doc).some((t) => traits.has(t)));
    return reply.send(present(request, datasets));
  });

  app.get<{ Params: Params }>("/connections/:id/targets", (request, reply) => {
    const connection = ctx.owned(request, "connections", request.params.id);
    return reply.send(present(request, state.resources(connection.account_id, "targets").filter((t) => t.doc.connection_id === connection.doc.id)));
  });
}
