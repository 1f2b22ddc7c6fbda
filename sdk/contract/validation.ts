// The service's validation messages: zod's issues as one error per offending member, named by its wire path.
import type { z } from "zod";

export interface FieldError {
  /** Dotted wire path of the member, e.g. `population.cohort_ids[0]`. */
  path: string;
  message: string;
  context: { errorType: string };
}

export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out === "" ? String(part) : `.${String(part)}`;
  }
  return out;
}

/** Turns zod issues into the service's validationErrors, one per offending member. */
export function toValidationErrors(issues: readonly z.core.$ZodIssue[], readOnly: readonly string[] = []): FieldError[] {
  const out: FieldError[] = [];
  const mistyped = new Set(issues.filter((i) => i.code === "invalid_type").map((i) => formatPath(i.path)));
  for (const issue of issues) {
    // A value of the wrong type is reported once, not also for its length or format.
    if (issue.code !== "invalid_type" && issue.code !== "custom" && mistyped.has(formatPath(issue.path))) continue;
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        const isReadOnly = issue.path.length === 0 && readOnly.includes(key);
        const custom = !issue.message.startsWith("Unrecognized key");
        out.push({
          path: formatPath([...issue.path, key]),
          message: isReadOnly ? "is read-only and cannot be set" : custom ? issue.message : "is not a recognized field",
          context: { errorType: isReadOnly ? "read_only" : "unrecognized_key" },
        });
      }
    } else if (issue.code === "invalid_union" && issue.errors.length > 0 && !issue.message.startsWith("must")) {
      // No variant matched: report the closest one's complaints, below the union's path.
      const closest = issue.errors.reduce((a, b) => (b.length < a.length ? b : a));
      const nested = closest.map((i) => ({ ...i, path: [...issue.path, ...i.path] }) as z.core.$ZodIssue);
      out.push(...toValidationErrors(nested, issue.path.length === 0 ? readOnly : []));
    } else {
      out.push({ path: formatPath(issue.path), message: plainMessage(issue), context: { errorType: issue.code } });
    }
  }
  return out;
}

/** zod's default wording, said in the service's terms; messages written by the schemas are kept. */
function plainMessage(issue: z.core.$ZodIssue): string {
  const m = issue.message;
  if (issue.code === "invalid_type" && m.startsWith("Invalid input")) {
    if (m.endsWith("received undefined")) return "is required";
    if (m.endsWith("received null")) return "is required and cannot be null";
    const what = { int: "an integer", record: "an object", object: "an object", array: "an array" }[issue.expected as string];
    return `must be ${what ?? `a ${issue.expected}`}`;
  }
  if ((issue.code === "too_small" || issue.code === "too_big") && m.startsWith("Too")) {
    const small = issue.code === "too_small";
    const bound = small ? issue.minimum : issue.maximum;
    const inclusive = issue.inclusive !== false;
    if (issue.origin === "string") return small && Number(bound) === 1 ? "must not be empty" : `must have ${small ? "at least" : "at most"} ${bound} characters`;
    if (issue.origin === "array" || issue.origin === "set") return `must have ${small ? "at least" : "at most"} ${bound} item${Number(bound) === 1 ? "" : "s"}`;
    return `must be ${small ? (inclusive ? "at least" : "greater than") : (inclusive ? "at most" : "less than")} ${bound}`;
  }
  if (issue.code === "invalid_format" && m.startsWith("Invalid")) {
    return issue.format === "regex" && issue.pattern ? `must match ${issue.pattern}` : `must be a valid ${issue.format}`;
  }
  if (issue.code === "invalid_key") {
    return `is not an allowed key: ${issue.issues.map((i) => i.message).join("; ")}`;
  }
  if (issue.code === "invalid_value" && m.startsWith("Invalid")) {
    return `must be one of ${issue.values.map(String).join(", ")}`;
  }
  return m;
}

export type Validation<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

/** Validates a wire body against a schema, naming each failing member by its path. */
export function validate<T extends z.ZodType>(schema: T, value: unknown, readOnly: readonly string[] = []): Validation<z.output<T>> {
  const result = schema.safeParse(value);
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, errors: toValidationErrors(result.error.issues, readOnly) };
}
