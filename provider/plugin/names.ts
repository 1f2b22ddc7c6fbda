// Operator members between the engine and the lifecycle. The package schema names them `$gte`, `$onOrAfter` (so
// that Go's generated fields are exported); TypeScript programs and the wire name them `_gte`, `_on_or_after`. The
// plugin takes either, hands the lifecycle the TypeScript names, answers inputs (and diff paths) in the names the
// program used, so that its `ignoreChanges` paths and recorded inputs keep meaning the same members, and answers
// outputs in the schema's names (an import or a lookup has no inputs to take a spelling from), but for a read of
// outputs recorded in the program's names (a state written before the schema renamed them), answered as recorded.
import { camelKey, renameFields, schemaName, type Naming, type Renaming } from "pulumi-audience/sdk/contract";
import type { z } from "zod";
import { isSecret, parsePath, type PropertyMap } from "../protocol/values.ts";

/** Whose names a resource's members have: the package schema's (`$gte`) or the TypeScript programs' (`_gte`). */
export type Spelling = "schema" | "program";

/** A secret is renamed inside its marker. */
function secretWrapper(value: Record<string, unknown>): ReturnType<NonNullable<Renaming["wrapped"]>> {
  if (!isSecret(value)) return undefined;
  return { inner: value.value, wrap: (inner) => ({ ...value, value: inner }) };
}

const TO_PROGRAM: Renaming = { from: [schemaName, camelKey], to: camelKey, wrapped: secretWrapper };
const TO_SCHEMA: Renaming = { from: [camelKey], to: schemaName, wrapped: secretWrapper };

/** Values whose fields have either name, with the TypeScript names the lifecycle reads. */
export function programNamed(schema: z.ZodType, values: PropertyMap): PropertyMap {
  return renameFields(schema, values, TO_PROGRAM) as PropertyMap;
}

/** Values with the TypeScript names, in `spelling`. */
export function spelled(schema: z.ZodType, values: PropertyMap, spelling: Spelling): PropertyMap {
  return spelling === "program" ? values : (renameFields(schema, values, TO_SCHEMA) as PropertyMap);
}

/** The spelling of inputs that name no member whose two names differ: the schema's. */
export const UNSEEN_SPELLING: Spelling = "schema";

/** The spelling of the first of `inputs` that names a member whose two names differ; the schema's when none does. */
export function spellingOf(schema: z.ZodType, ...inputs: PropertyMap[]): Spelling {
  return spellingSeen(schema, ...inputs) ?? UNSEEN_SPELLING;
}

/** The spelling of the first of `inputs` that names a member whose two names differ, if one does. */
export function spellingSeen(schema: z.ZodType, ...inputs: PropertyMap[]): Spelling | undefined {
  for (const values of inputs) {
    const seen = new Set<Naming>();
    renameFields(schema, values, { ...TO_PROGRAM, found: (field, naming) => {
      if (schemaName(field) !== camelKey(field)) seen.add(naming);
    } });
    if (seen.has(schemaName)) return "schema";
    if (seen.size > 0) return "program";
  }
  return undefined;
}

/** A member's path in the TypeScript names (`streamConditions[0]._gte`), in `spelling`. */
export function pathSpelled(schema: z.ZodType, path: string, spelling: Spelling): string {
  if (spelling === "program") return path;
  let parts: (string | number)[];
  try {
    parts = parsePath(path);
  } catch {
    return path;
  }
  // A value holding only that member, renamed: the keys along it are the path's names in the schema.
  let value: unknown = null;
  for (const part of [...parts].reverse()) value = typeof part === "number" ? Object.assign([], { [part]: value }) : { [part]: value };
  let renamed = renameFields(schema, value, TO_SCHEMA);
  const names: (string | number)[] = [];
  for (const part of parts) {
    if (typeof part === "number") {
      names.push(part);
      renamed = (renamed as unknown[])[part];
    } else {
      const [name, inner] = Object.entries(renamed as Record<string, unknown>)[0]!;
      names.push(name);
      renamed = inner;
    }
  }
  // Written as the path was unless a name changed; a key that is no plain name is quoted.
  if (names.every((name, i) => name === parts[i])) return path;
  return names.map((name, i) => typeof name === "number" ? `[${name}]`
    : /^[A-Za-z_$][\w$]*$/.test(name) ? `${i === 0 ? "" : "."}${name}` : `[${JSON.stringify(name)}]`).join("");
}

/**
 * A message's operator members (`one of _eq, _gte`) in the schema's names (`$eq`, `$gte`) when the program wrote
 * those; as written when it wrote the TypeScript names, or none (TypeScript and Python programs write `_gte`).
 */
export function textSpelled(text: string, spelling: Spelling | undefined): string {
  return spelling !== "schema" ? text : text.replace(/(?<![\w$])_[a-z][a-z0-9]*(?:_[a-z0-9]+)*\b/g, (word) => schemaName(word));
}
