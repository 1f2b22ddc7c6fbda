// Persona sets: built only out of preview; a build finds the personas (derived ids kept across builds) and
// counts the cohort members each was built from.
import { resourcesOf } from "../outputs/worlds.ts";
import type { Doc } from "../state.ts";
import { personaAssignment } from "../world/scores.ts";
import type { EmulatorFamily } from "./family.ts";

export const personaSet: EmulatorFamily = {
  previewHoldsBuild: true,
  onCreate: () => ({ personas: [], active: false }),
  build(ctx, resource) {
    const assignment = personaAssignment(ctx.worldOf(resource.account_id), resource.doc, resourcesOf(ctx.resources, resource.account_id));
    const own = (Array.isArray(resource.doc.personas) ? resource.doc.personas : []) as Doc[];
    return {
      active: true,
      personas: assignment.personas.map((persona, k) => ({ ...own.find((p) => p.id === persona.id), ...persona, individuals_count: assignment.individualsCount[k] })),
    };
  },
};
