// Columnar storage of values shared by traits and stream properties: numbers in a Float64Array (NaN is null),
// text as codes into a category list, booleans as 0 / 1, dates as epoch days.
import type { Scalar } from "./conditions.ts";

export type ValueType = "double" | "long" | "string" | "boolean" | "date";

export interface Column {
  type: ValueType;
  data: Float64Array;
  /** Text values by code, for `string` columns. */
  categories: string[];
}

export function column(type: ValueType, length: number, categories: string[] = []): Column {
  return { type, data: new Float64Array(length).fill(NaN), categories };
}

/** The value at `index`, as conditions compare it (dates stay epoch days). */
export function valueAt(col: Column, index: number): Scalar {
  const raw = col.data[index] as number;
  if (Number.isNaN(raw)) return null;
  if (col.type === "string") return col.categories[raw] ?? null;
  if (col.type === "boolean") return raw === 1;
  return raw;
}

/** Stores a JSON value (dates as `YYYY-MM-DD` or epoch days). */
export function setValue(col: Column, index: number, value: Scalar, toDay: (date: string) => number): void {
  if (value === null || value === undefined) return;
  if (col.type === "string") {
    const text = String(value);
    let code = col.categories.indexOf(text);
    if (code < 0) code = col.categories.push(text) - 1;
    col.data[index] = code;
  } else if (col.type === "boolean") {
    col.data[index] = value === true ? 1 : 0;
  } else if (col.type === "date") {
    col.data[index] = typeof value === "number" ? value : toDay(String(value));
  } else {
    col.data[index] = Number(value);
  }
}

/** The type a JSON value is stored as. */
export function typeOf(value: Scalar, key: string): ValueType {
  if (typeof value === "boolean") return "boolean";
  if (typeof value === "number") return Number.isInteger(value) ? "long" : "double";
  if (key === "datetime" || (typeof value === "string" && /^\d{4}-\d{2}-\d{2}/.test(value))) return "date";
  return "string";
}
