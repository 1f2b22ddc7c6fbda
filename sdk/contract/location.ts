// Location property conditions, shared by cohorts' location_conditions and scopes' location payload.
import { z } from "zod";
import { matchPattern } from "./fields.ts";
import { operatorDocs, type MemberDocs } from "./docs.ts";

const NUMERIC = ["_gt", "_gte", "_lt", "_lte"] as const;
const OPERATORS = ["_eq", "_in", "_nin", "_matches", ...NUMERIC, "_null", "_nnull"] as const;

/**
 * `{property, <operator>: value}`; a property reads as number or text, never both in one condition. `property`
 * may be `name` or `reference_key` (the location's own). Operators accept null (a PATCH clears a stored value).
 */
export const locationPropertyCondition = z.strictObject({
  property: z.string().min(1, { error: "must name a location property (or name / reference_key)" }),
  optional: z.boolean().optional(),
  _eq: z.union([z.string(), z.number(), z.boolean()]).nullish(),
  _in: z.array(z.union([z.string(), z.number()])).nullish(),
  _nin: z.array(z.union([z.string(), z.number()])).nullish(),
  _matches: matchPattern.nullish(),
  _gt: z.number().nullish(),
  _gte: z.number().nullish(),
  _lt: z.number().nullish(),
  _lte: z.number().nullish(),
  _null: z.boolean().nullish(),
  _nnull: z.boolean().nullish(),
}, {
  error: (iss) => iss.code === "unrecognized_keys"
    ? `is not allowed on a location property condition; allowed operators: ${OPERATORS.join(", ")}` : undefined,
}).check((ctx) => {
  const v = ctx.value;
  if (v._matches != null) {
    for (const op of NUMERIC) {
      if (v[op] != null) {
        ctx.issues.push({
          code: "custom", input: v, path: [op],
          message: `cannot be combined with _matches in one condition: give each comparison its own condition`,
        });
      }
    }
  }
  if (!OPERATORS.some((op) => v[op] != null)) {
    ctx.issues.push({ code: "custom", input: v, path: [], message: `must give an operator: one of ${OPERATORS.join(", ")}` });
  }
});

/** Field docs of a location property condition, wherever one is used. */
export const locationPropertyConditionDocs = {
  property: "The location property compared; `name` and `reference_key` compare the location's own name and reference key.",
  optional: "`true`: a location lacking the property still qualifies.",
  ...operatorDocs,
  _matches: "Text matching this regular expression; a property is read as a number or as text, so `_matches` cannot be combined with `_gt`, `_gte`, `_lt` or `_lte` in one condition.",
} as const satisfies MemberDocs;
