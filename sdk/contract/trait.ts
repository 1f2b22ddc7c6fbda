// Trait: a fact about a person (user-defined from datasets, or provided by the service's identity graph).
import { z } from "zod";
import { defineFamily } from "./family.ts";
import { name } from "./fields.ts";
import { statisticalType } from "./stream.ts";
import type { MemberDocs } from "./docs.ts";

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

const traitAnswers = {
  coverage: z.number().nullish(),
  precision: z.unknown().optional(),
  tier: z.unknown().optional(),
  permissions: z.array(z.string()).nullish(),
  deprecated: z.boolean().nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
};

/** Field docs of traits, by member path (see docs.ts). */
export const traitDocs = {
  category: "Category, e.g. `life_event` or one shared with streams.",
  statistical_type: "How the values are distributed; the legacy `categorical`, `multicategorical`, `ordinal` and `nominal` are deprecated but accepted.",
  literate: "Human-readable name.",
  description: "What the trait is.",
  unit: "Unit of the values.",
  breaks: "Bin edges for continuous values.",
  categories: "Values of categorical data.",
  coverage: "Percentage of the US population having the trait.",
  precision: "Precision of the values.",
  tier: "Pricing tier.",
  permissions: "What the account may do with the trait.",
  deprecated: "Whether the service has deprecated the trait.",
  metadata: "Literate name, description, units and the datasets emitting it.",
} as const satisfies MemberDocs;

export const trait = defineFamily({
  name: "trait",
  className: "Trait",
  summary: "A user-defined trait, filled by datasets' `outputToTraits`.",
  collection: "traits",
  shape,
  answers: traitAnswers,
  docs: traitDocs,
  builds: false,
});
