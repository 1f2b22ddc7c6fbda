// Persona sets: built only out of preview; a build finds the personas (derived ids kept across builds) and
// counts the cohort members each was built from; a persona is renamed through its own route.
import { personaPatch, validate } from "pulumi-audience/sdk/contract";
import { notFound, validationFailed } from "../errors.ts";
import type { EmulatorFamily } from "../family.ts";
import { input, ok, param, ref } from "../openapi.ts";
import { personaDimensions, personaFlow } from "../outputs/analysis.ts";
import { analysisOf } from "../outputs/http.ts";
import { resourcesOf } from "../outputs/worlds.ts";
import { now, type Doc } from "../state.ts";
import { personaAssignment } from "../world/scores.ts";

export const personaSet: EmulatorFamily = {
  collection: "persona_sets",
  onCreate: () => ({ personas: [], active: false }),
  build(ctx, resource) {
    const assignment = personaAssignment(ctx.worldOf(resource.account_id), resource.doc, resourcesOf(ctx.resources, resource.account_id));
    const own = (Array.isArray(resource.doc.personas) ? resource.doc.personas : []) as Doc[];
    return {
      active: true,
      personas: assignment.personas.map((persona, k) => ({ ...own.find((p) => p.id === persona.id), ...persona, individuals_count: assignment.individualsCount[k] })),
    };
  },
  routes(app, ctx) {
    const { state } = ctx;
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
    app.get<{ Params: { id: string } }>("/persona_sets/:id/analysis/dimensions", analysisOf(ctx, "persona_sets", personaDimensions));
    app.get<{ Params: { id: string } }>("/persona_sets/:id/analysis/flow", analysisOf(ctx, "persona_sets", personaFlow));
  },
  openApi: () => ({
    schemas: { PersonaPatch: input(personaPatch) },
    paths: {
      "/persona_sets/{id}/personas/{persona_id}": { patch: { summary: "Rename a persona", parameters: [param(), param("persona_id")], requestBody: { required: true, content: { "application/merge-patch+json": { schema: ref("PersonaPatch") } } }, responses: ok() } },
      "/persona_sets/{id}/analysis/dimensions": { get: { summary: "Personas and their distributions", parameters: [param()], responses: ok() } },
    },
  }),
};
