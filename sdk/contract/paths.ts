// Where things live in the contract's terms: a family's URL path, and a member's dotted wire path with `[]`
// for array elements ("population.cohort_ids[]"), as references, secrets and create-only members name them.
import { isObject } from "./merge-patch.ts";

/** URL path of a family's collection relative to the base URL: `/scopes`, `/knowledgebase/use_cases`. */
export function collectionPath(family: { path: string }): string {
  return `/${family.path}`;
}

/**
 * URL path of one resource: `/scopes/<id>`. A singleton (one per account) has no id in its path. `id` is put
 * in as given: encoded by a client, a route parameter (`:id`, `{id}`) by a server.
 */
export function itemPath(family: { path: string; singleton: boolean }, id: string): string {
  return family.singleton ? collectionPath(family) : `${collectionPath(family)}/${id}`;
}

type Visit = (value: unknown, concretePath: string, set: (v: unknown) => void) => void;

/** Calls `visit` for every value at a member path in `doc`, with its concrete path (`population.cohort_ids[1]`). */
export function visitPath(doc: unknown, path: string, visit: Visit): void {
  const parts = path.split(".");
  const walk = (node: unknown, i: number, at: string, set: (v: unknown) => void): void => {
    if (i === parts.length) return visit(node, at, set);
    const part = parts[i] as string;
    const isArray = part.endsWith("[]");
    const key = isArray ? part.slice(0, -2) : part;
    if (!isObject(node) || !(key in node) || node[key] === undefined) return;
    const here = at === "" ? key : `${at}.${key}`;
    const child = node[key];
    if (!isArray) return walk(child, i + 1, here, (v) => { node[key] = v; });
    if (!Array.isArray(child)) return;
    child.forEach((element, n) => walk(element, i + 1, `${here}[${n}]`, (v) => { child[n] = v; }));
  };
  walk(doc, 0, "", () => undefined);
}

/** Every string found at a member path, with where it was found. */
export function valuesAt(doc: unknown, path: string): { at: string; value: string }[] {
  const out: { at: string; value: string }[] = [];
  visitPath(doc, path, (value, at) => {
    if (typeof value === "string") out.push({ at, value });
  });
  return out;
}

/** The value at a member path without `[]` (`options.type`), or undefined when the document has none. */
export function valueAt(doc: unknown, path: string): unknown {
  let found: unknown;
  visitPath(doc, path, (value) => {
    found = value;
  });
  return found;
}
