// Conditions on event stream properties, traits and attributes: `{property | name, optional?, <operator>: value}`.
import { z } from "zod";
import { isoDate, issue, matchPattern, nameText } from "./fields.ts";
import { isObject, jsonEqual } from "./merge-patch.ts";
import type { FieldError } from "./validation.ts";

const scalar = z.union([z.string(), z.number(), z.boolean()]);
const scalarList = z.array(z.union([z.string(), z.number()]));

/** Every comparison operator of the service and the value it takes. */
export const operatorShape = {
  _eq: scalar.optional(),
  _in: scalarList.optional(),
  _nin: scalarList.optional(),
  /** A regular expression matched against text. */
  _matches: matchPattern.optional(),
  _gt: z.number().optional(),
  _gte: z.number().optional(),
  _lt: z.number().optional(),
  _lte: z.number().optional(),
  _null: z.boolean().optional(),
  _nnull: z.boolean().optional(),
};
export const OPERATORS = Object.keys(operatorShape);
export const NUMERIC_OPERATORS = ["_gt", "_gte", "_lt", "_lte"] as const;

function requireOperator(ctx: { value: Record<string, unknown>; issues: z.core.$ZodRawIssue[] }, allowed: readonly string[]) {
  // A stray operator is named already, with the ones allowed: one mistake, one message.
  if (ctx.issues.some((i) => i.code === "unrecognized_keys")) return;
  if (!allowed.some((op) => ctx.value[op] !== undefined)) {
    issue(ctx, [], `must give an operator: one of ${allowed.join(", ")}`);
  }
}

/** Strict condition object; a stray operator is named with the operators this condition takes. */
export function conditionOf<S extends z.core.$ZodLooseShape>(what: string, shape: S, operators: readonly string[]) {
  return z.strictObject(shape, {
    error: (iss) => iss.code === "unrecognized_keys"
      ? `is not allowed on a ${what} condition; allowed operators: ${operators.join(", ")}` : undefined,
  }).check((ctx) => requireOperator(ctx as never, operators));
}

/** Cohort trait condition: `{name, optional?, <operator>}`. */
export const traitCondition = conditionOf("trait", {
  name: nameText("must name a trait"),
  /** Union semantics: a person lacking the trait still qualifies. */
  optional: z.boolean().optional(),
  ...operatorShape,
}, OPERATORS);

/** Cohort attribute condition: `{name, optional?, <operator>}` on an attribute such as `ig/age`. */
export const attributeCondition = conditionOf("attribute", {
  name: nameText("must name an attribute"),
  optional: z.boolean().optional(),
  ...operatorShape,
}, OPERATORS);

const streamOperators = [...OPERATORS, "_on_or_before", "_on_or_after"];

/** Stream condition: `{property, optional?, <operator>}`; dates compare by calendar day, both ends included. */
export const streamCondition = z.strictObject({
  property: nameText("must name a stream property"),
  optional: z.boolean().optional(),
  ...operatorShape,
  _on_or_before: isoDate.optional(),
  _on_or_after: isoDate.optional(),
}, {
  error: (iss) => iss.code === "unrecognized_keys"
    ? `is not allowed on a stream condition; allowed operators: ${streamOperators.join(", ")}` : undefined,
}).check((ctx) => {
  requireOperator(ctx as never, streamOperators);
  const { _on_or_after: after, _on_or_before: before } = ctx.value;
  if (after !== undefined && before !== undefined && after > before) {
    issue(ctx, ["_on_or_after"], `must not be later than _on_or_before (${before})`);
  }
  // Every stream's `datetime` is a date: known without asking the service for the stream's other properties.
  if (ctx.value.property === "datetime") {
    for (const op of NUMERIC_OPERATORS) if (ctx.value[op] !== undefined) issue(ctx, [op], numericOnDate("datetime", "date"));
  }
});

/** Why a numeric operator is refused on a date property. */
function numericOnDate(property: string, type: string): string {
  return `is not allowed on ${type} property ${property}; use _on_or_before / _on_or_after (YYYY-MM-DD)`;
}
export type StreamCondition = z.input<typeof streamCondition>;

/** Types of stream properties; a stream's `datetime` property has type date. */
export const streamPropertyType = z.enum(["boolean", "long", "double", "string", "date", "datetime"]);
export type StreamPropertyType = z.infer<typeof streamPropertyType>;
const DATE_TYPES: readonly StreamPropertyType[] = ["date", "datetime"];

/**
 * The stream-condition rules that need the stream's property types: `_on_or_before`/`_on_or_after` only on
 * date properties, `_gt/_gte/_lt/_lte` never on date or datetime properties. Properties absent from
 * `propertyTypes` are not judged (any property name may be created by a dataset). `path` prefixes each error.
 */
export function checkStreamConditions(
  conditions: readonly StreamCondition[] | null | undefined,
  propertyTypes: Readonly<Record<string, StreamPropertyType>>,
  path = "stream_conditions",
): FieldError[] {
  const errors: FieldError[] = [];
  (conditions ?? []).forEach((condition, i) => {
    const type = Object.hasOwn(propertyTypes, condition.property) ? propertyTypes[condition.property] : undefined;
    if (type === undefined) return;
    const isDate = DATE_TYPES.includes(type);
    for (const op of ["_on_or_before", "_on_or_after"] as const) {
      if (condition[op] !== undefined && !isDate) {
        errors.push({
          path: `${path}[${i}].${op}`,
          message: `is only allowed on date properties; ${condition.property} is of type ${type} (use _eq, _in, _gt, ... instead)`,
          context: { errorType: "invalid_operator" },
        });
      }
    }
    for (const op of NUMERIC_OPERATORS) {
      if (condition[op] !== undefined && isDate) {
        errors.push({
          path: `${path}[${i}].${op}`,
          message: numericOnDate(condition.property, type),
          context: { errorType: "invalid_operator" },
        });
      }
    }
  });
  return errors;
}

const PROPERTY_TYPES = new Set<string>(streamPropertyType.options);

/**
 * The types of a stream's properties as its account tells them: the stream's own declarations and the data maps of
 * the datasets that output to it (a column whose format is a date makes a date property); `datetime` is always a
 * date. `streams` and `datasets` are the account's documents, as listed.
 */
export function streamPropertyTypes(streamName: string, streams: readonly unknown[], datasets: readonly unknown[]): Record<string, StreamPropertyType> {
  const types: Record<string, StreamPropertyType> = { datetime: "date" };
  const note = (property: string, type: unknown) => {
    if (typeof type === "string" && PROPERTY_TYPES.has(type)) types[property] = type as StreamPropertyType;
  };
  for (const stream of streams) {
    if (!isObject(stream) || stream.name !== streamName) continue;
    const properties = stream.properties;
    if (Array.isArray(properties)) for (const p of properties) if (isObject(p)) note(String(p.name), p.type);
    if (isObject(properties)) for (const [name, p] of Object.entries(properties)) note(name, isObject(p) ? p.type : p);
  }
  for (const dataset of datasets) {
    const outputs = isObject(dataset) ? dataset.output_to_streams : undefined;
    const mapping = isObject(outputs) ? outputs[streamName] : undefined;
    const dataMap = isObject(mapping) ? mapping.data_map : undefined;
    if (!isObject(dataMap)) continue;
    for (const [property, column] of Object.entries(dataMap)) {
      if (!isObject(column)) continue;
      const format = String(column.format ?? "");
      note(property, column.type ?? (format.startsWith("date") || /yyyy/.test(format) ? "date" : undefined));
    }
  }
  return types;
}

/**
 * The stream conditions of a cohort body the service judges against its stream's property types: those new or
 * changed since `previous` (all of them on another stream). Their indexes.
 */
export function judgedStreamConditions(doc: Record<string, unknown>, previous?: Record<string, unknown>): number[] {
  if (typeof doc.stream_name !== "string" || !Array.isArray(doc.stream_conditions)) return [];
  const conditions: unknown[] = doc.stream_conditions;
  const before = previous?.stream_name === doc.stream_name && Array.isArray(previous.stream_conditions) ? previous.stream_conditions : [];
  return conditions.flatMap((c, i) => (before.some((p) => jsonEqual(p, c)) ? [] : [i]));
}

/** The errors of the judged stream conditions of a cohort body (`judgedStreamConditions`) against `propertyTypes`. */
export function streamConditionErrors(doc: Record<string, unknown>, previous: Record<string, unknown> | undefined, propertyTypes: Readonly<Record<string, StreamPropertyType>>): FieldError[] {
  const judged = new Set(judgedStreamConditions(doc, previous));
  if (judged.size === 0) return [];
  return checkStreamConditions(doc.stream_conditions as StreamCondition[], propertyTypes)
    .filter((e) => judged.has(Number(/^stream_conditions\[(\d+)\]/.exec(e.path)?.[1])));
}
