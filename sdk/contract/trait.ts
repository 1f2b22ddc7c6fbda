// Trait: a fact about a person (user-defined from datasets, or provided by the service's identity graph).
import { z } from "zod";
import { body, defineFamily, name, patchOf, responseOf, type MergePatchOf } from "./common.ts";
import { statisticalType } from "./stream.ts";

const shape = {
  name,
  /** Category such as life_event or one shared with streams (values not all shown). */
  category: z.string().min(1).optional(),
  statistical_type: statisticalType.optional(),
  /** Human-readable names and descriptions. */
  literate: z.string().optional(),
  description: z.string().optional(),
  unit: z.string().optional(),
  breaks: z.array(z.number()).optional(),
  categories: z.array(z.string()).optional(),
};

export const traitCreate = body(shape);
export const traitPatch = patchOf(shape);
export const traitResponse = responseOf(shape, {
  coverage: z.number().nullish(),
  precision: z.unknown().optional(),
  tier: z.unknown().optional(),
  permissions: z.array(z.string()).nullish(),
  deprecated: z.boolean().nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
});

export type TraitCreate = z.input<typeof traitCreate>;
export type TraitPatch = MergePatchOf<TraitCreate>;
export type TraitResponse = z.output<typeof traitResponse>;

export const trait = defineFamily({
  name: "trait",
  className: "Trait",
  collection: "traits",
  create: traitCreate,
  patch: traitPatch,
  response: traitResponse,
  builds: false,
});
