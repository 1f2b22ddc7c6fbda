// Persona set: clusters a cohort into personas along clustering dimensions.
import { z } from "zod";
import { body, defineFamily, id, isoDate, name, patchOf, responseOf, type MergePatchOf } from "./common.ts";

const names = z.array(z.string().min(1));

export const clusteringDimensions = z.strictObject({
  /** First-party traits. */
  traits: names.optional(),
  /** Provided attributes from the service's allowed clustering set (ig/...). */
  attributes: names.optional(),
  attribute_max_observation_date: isoDate.optional(),
  /** Event stream properties keyed by stream name. */
  streams: z.record(z.string(), names).optional(),
});

const shape = {
  name,
  cohort_id: id,
  number_of_clusters: z.number().int().min(2, { error: "must be 2 or more" }).optional(),
  clustering_dimensions: clusteringDimensions.optional(),
  /** Deprecated: clustering_dimensions takes precedence. */
  modeling_fields: names.optional().meta({ deprecated: true }),
  modeling_attributes: names.optional().meta({ deprecated: true }),
  modeling_field_max_observation_date: isoDate.optional().meta({ deprecated: true }),
  explore: z.boolean().default(false),
  preview: z.boolean().optional(),
};

export const persona = z.object({
  id,
  name: z.string(),
  individuals_count: z.number().int().nullish(),
  details: z.unknown().optional(),
  /** Deprecated. */
  avatar: z.unknown().optional(),
}).loose();

/** Body of PATCH /persona_sets/{persona_set_id}/personas/{persona_id}. */
export const personaPatch = z.strictObject({ name });

export const personaSetCreate = body(shape);
export const personaSetPatch = patchOf(shape);
export const personaSetResponse = responseOf(shape, {
  personas: z.array(persona).nullish(),
  individuals_count: z.number().int().nullish(),
  interpretation: z.unknown().optional(),
  active: z.boolean().nullish(),
});

export type PersonaSetCreate = z.input<typeof personaSetCreate>;
export type PersonaSetPatch = MergePatchOf<PersonaSetCreate>;
export type PersonaSetResponse = z.output<typeof personaSetResponse>;
export type Persona = z.output<typeof persona>;
export type PersonaPatch = z.input<typeof personaPatch>;

export const personaSet = defineFamily({
  name: "persona_set",
  className: "PersonaSet",
  collection: "persona_sets",
  create: personaSetCreate,
  patch: personaSetPatch,
  response: personaSetResponse,
  references: [{ path: "cohort_id", collection: "cohorts" }],
});
