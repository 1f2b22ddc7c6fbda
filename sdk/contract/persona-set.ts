// Persona set: clusters a cohort into personas along clustering dimensions.
import { z } from "zod";
import { defineFamily } from "./family.ts";
import { id, isoDate, name, nameText } from "./fields.ts";
import type { MemberDocs } from "./docs.ts";

const names = z.array(nameText("must name a trait, an attribute or a property"));

export const clusteringDimensions = z.strictObject({
  /** First-party traits. */
  traits: names.optional(),
  /** Provided attributes from the service's allowed clustering set (ig/...). */
  attributes: names.optional(),
  attribute_max_observation_date: isoDate.optional(),
  /** Event stream properties keyed by stream name. */
  streams: z.record(nameText("must name an event stream"), names).optional(),
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

const personaSetAnswers = {
  personas: z.array(persona).nullish(),
  individuals_count: z.number().int().nullish(),
  interpretation: z.unknown().optional(),
  active: z.boolean().nullish(),
};

export type Persona = z.output<typeof persona>;
export type PersonaPatch = z.input<typeof personaPatch>;

/** Field docs of persona sets, by member path (see docs.ts). */
export const personaSetDocs = {
  cohort_id: "Id of the cohort clustered into personas.",
  number_of_clusters: "How many personas to form (2 or more).",
  clustering_dimensions: "What people are clustered by; takes precedence over the deprecated `modeling*` members. Changing it triggers a complete rebuild.",
  "clustering_dimensions.traits": "First-party traits.",
  "clustering_dimensions.attributes": "Provided attributes (`ig/...`) from the service's allowed clustering set; for feature-store accounts.",
  "clustering_dimensions.attribute_max_observation_date": "Caps the provided-attribute data release used (`YYYY-MM-DD`).",
  "clustering_dimensions.streams": "Stream name -> the event properties used.",
  modeling_fields: { doc: "Fields clustered by.", deprecated: "Use `clusteringDimensions.traits`." },
  modeling_attributes: { doc: "Attributes clustered by.", deprecated: "Use `clusteringDimensions.attributes`." },
  modeling_field_max_observation_date: { doc: "Caps the data release used.", deprecated: "Use `clusteringDimensions.attributeMaxObservationDate`." },
  explore: "`true`: an exploratory persona set, not billed as a production resource.",
  preview: "`true`: the persona set does not build until preview is turned off.",
  personas: "The personas formed, once built; name them with `personaNames`.",
  "personas[].id": "The persona's id.",
  "personas[].name": "The persona's name.",
  "personas[].individuals_count": "People assigned the persona.",
  "personas[].details": "What characterizes the persona.",
  "personas[].avatar": { doc: "The persona's picture.", deprecated: "No replacement." },
  individuals_count: "Cohort members matched at individual level.",
  interpretation: "The service's reading of the personas.",
  active: "Whether the persona set is active.",
} as const satisfies MemberDocs;

export const personaSet = defineFamily({
  name: "persona_set",
  className: "PersonaSet",
  summary: "A persona objective: clusters a cohort into personas. Name personas with `personaNames` (persona id -> name) once it has built.",
  collection: "persona_sets",
  previewHoldsBuild: true,
  shape,
  answers: personaSetAnswers,
  docs: personaSetDocs,
  references: [{ path: "cohort_id", collection: "cohorts" }],
});
