import { describe, expect, it } from "vitest";
import { checkStreamConditions, families, validate, type StreamCondition, type StreamPropertyType } from "pulumi-audience/sdk/contract";

const types: Record<string, StreamPropertyType> = {
  datetime: "datetime", signup_date: "date", amount: "double", count: "long", channel: "string", gift: "boolean",
};

describe("checkStreamConditions (rules that need the stream's property types)", () => {
  const refused: [string, StreamCondition, string, string][] = [
    ["_on_or_before on a number", { property: "amount", _on_or_before: "2024-01-01" }, "_on_or_before", "only allowed on date properties"],
    ["_on_or_after on text", { property: "channel", _on_or_after: "2024-01-01" }, "_on_or_after", "of type string"],
    ["_on_or_after on a boolean", { property: "gift", _on_or_after: "2024-01-01" }, "_on_or_after", "of type boolean"],
    ["_gt on a date", { property: "signup_date", _gt: 3 }, "_gt", "_on_or_before / _on_or_after"],
    ["_lte on the datetime property", { property: "datetime", _lte: 3 }, "_lte", "not allowed on datetime"],
    ["_gte on a date", { property: "signup_date", _gte: 1 }, "_gte", "not allowed on date"],
    ["_lt on a date", { property: "signup_date", _lt: 1 }, "_lt", "not allowed on date"],
  ];
  it.each(refused)("refuses %s, naming the operator's path", (_case, condition, op, words) => {
    const errors = checkStreamConditions([{ property: "count", _gt: 1 }, condition], types);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.path).toBe(`stream_conditions[1].${op}`);
    expect(errors[0]?.message).toContain(words);
  });

  it("accepts date ranges on date properties and comparisons on numbers", () => {
    expect(checkStreamConditions([
      { property: "signup_date", _on_or_after: "2024-01-01", _on_or_before: "2024-01-31" },
      { property: "datetime", _on_or_after: "2024-01-01" },
      { property: "amount", _gte: 10, _lt: 100 },
      { property: "channel", _eq: "web", _matches: "^w" },
    ], types)).toEqual([]);
  });

  it("leaves properties of unknown type to the service (any property name may be created)", () => {
    expect(checkStreamConditions([{ property: "brand_new", _gt: 1, _on_or_after: "2024-01-01" }], types)).toEqual([]);
  });

  it("reports every offending operator, under the path it is given", () => {
    const errors = checkStreamConditions([{ property: "amount", _on_or_before: "2024-01-01", _on_or_after: "2023-01-01" }], types, "payload.conditions");
    expect(errors.map((e) => e.path)).toEqual(["payload.conditions[0]._on_or_before", "payload.conditions[0]._on_or_after"]);
  });

  it("accepts no conditions", () => {
    expect(checkStreamConditions(undefined, types)).toEqual([]);
  });
});

describe("the stream's datetime property, a date in every stream", () => {
  it("refuses a numeric operator on it in the create body itself, without the stream's property types", () => {
    const result = validate(families.cohorts.create, { name: "c", stream_name: "orders", stream_conditions: [{ property: "datetime", _gt: 5 }] });
    expect(result.ok ? [] : result.errors.map((e) => `${e.path}: ${e.message}`)).toEqual([
      "stream_conditions[0]._gt: is not allowed on date property datetime; use _on_or_before / _on_or_after (YYYY-MM-DD)",
    ]);
    expect(validate(families.cohorts.create, { name: "c", stream_name: "orders", stream_conditions: [{ property: "datetime", _on_or_after: "2024-01-01" }] }).ok).toBe(true);
  });
});
