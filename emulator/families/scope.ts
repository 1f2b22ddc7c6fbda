// Scopes: a build counts the population (people and residences); the owner is mailed when it finishes.
import { residenceCount, scopePopulation } from "../outputs/scope.ts";
import { resourcesOf } from "../outputs/worlds.ts";
import type { EmulatorFamily } from "./family.ts";

export const scope: EmulatorFamily = {
  mailOnReady: true,
  build(ctx, resource) {
    const world = ctx.worldOf(resource.account_id);
    const people = scopePopulation(world, resource.doc, resourcesOf(ctx.resources, resource.account_id));
    return { population_count: people.length, population_residence_count: residenceCount(world, people) };
  },
};
