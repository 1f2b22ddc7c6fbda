// Scopes: a build counts the population (people and residences); the owner is mailed when it finishes. A scope
// lists the cohorts and datasets it reads, and answers its analyses.
import type { EmulatorFamily } from "../family.ts";
import { list, ok, param } from "../openapi.ts";
import { scopeAnalysis, scopeEfficacy, scopeGeography } from "../outputs/analysis.ts";
import { analysisOf } from "../outputs/http.ts";
import { residenceCount, scopePopulation } from "../outputs/scope.ts";
import { resourcesOf } from "../outputs/worlds.ts";
import { presentFiltered } from "../routes/paging.ts";
import type { Doc } from "../state.ts";

type Params = { id: string };

const ids = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : []);

export const scope: EmulatorFamily = {
  collection: "scopes",
  mailOnReady: true,
  build(ctx, resource) {
    const world = ctx.worldOf(resource.account_id);
    const people = scopePopulation(world, resource.doc, resourcesOf(ctx.resources, resource.account_id));
    return { population_count: people.length, population_residence_count: residenceCount(world, people) };
  },
  routes(app, ctx) {
    const { state } = ctx;
    const cohorts = (accountId: string, wanted: string[]) =>
      state.resources(accountId, "cohorts").filter((c) => wanted.includes(String(c.doc.id)));

    app.get<{ Params: Params }>("/scopes/:id/payload/cohorts", (request, reply) => {
      const scope = ctx.owned(request, "scopes", request.params.id);
      return reply.send(presentFiltered(ctx, request, cohorts(scope.account_id, ids((scope.doc.payload as Doc | undefined)?.cohort_ids))));
    });

    app.get<{ Params: Params }>("/scopes/:id/population/exclusion_address_level_cohorts", (request, reply) => {
      const scope = ctx.owned(request, "scopes", request.params.id);
      return reply.send(presentFiltered(ctx, request, cohorts(scope.account_id, ids((scope.doc.population as Doc | undefined)?.exclusion_address_level_cohort_ids))));
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
      return reply.send(presentFiltered(ctx, request, datasets));
    });

    app.get<{ Params: Params }>("/scopes/:id/analysis", analysisOf(ctx, "scopes", scopeAnalysis));
    app.get<{ Params: Params }>("/scopes/:id/analysis/geography", analysisOf(ctx, "scopes", (w, doc, res) => scopeGeography(w, doc, res, doc.status === "ready")));
    app.get<{ Params: Params }>("/scopes/:id/efficacy", analysisOf(ctx, "scopes", scopeEfficacy));
  },
  openApi: () => ({
    paths: {
      "/scopes/{id}/datasets": { get: { summary: "Datasets tied to the scope's population cohorts", parameters: [param()], responses: ok(list) } },
      "/scopes/{id}/payload/cohorts": { get: { summary: "Cohorts in the scope's payload", parameters: [param()], responses: ok(list) } },
      "/scopes/{id}/population/exclusion_address_level_cohorts": { get: { summary: "Cohorts whose addresses are suppressed", parameters: [param()], responses: ok(list) } },
      "/scopes/{id}/analysis": { get: { summary: "A scope's population and payload analysis", parameters: [param()], responses: ok() } },
      "/scopes/{id}/analysis/geography": { get: { summary: "A scope's people per state and postcode (postcodes left out past 250)", parameters: [param()], responses: ok() } },
      "/scopes/{id}/efficacy": { get: { summary: "How well a scope's outcomes separate attainers", parameters: [param()], responses: ok() } },
    },
  }),
};
