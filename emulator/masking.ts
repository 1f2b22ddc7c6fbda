// Credentials are kept and answered only as `<secret>`: masking a document in place, or a copy of it.
import { SECRET_PLACEHOLDER, visitPath } from "pulumi-audience/sdk/contract";
import type { Doc } from "./model.ts";

/** What masking reads of a family: the dotted wire paths of its credential members. */
type Secrets = { secrets: readonly string[] } | undefined;

/** Replaces every credential member of a document by the `<secret>` placeholder. */
export function maskSecrets(family: Secrets, doc: Doc): Doc {
  for (const path of family?.secrets ?? []) {
    visitPath(doc, path, (value, _at, set) => {
      if (value !== null && value !== undefined) set(SECRET_PLACEHOLDER);
    });
  }
  return doc;
}

/** A copy of `doc` with its secrets masked: only the objects and arrays on the way to a secret are copied, the rest
 * is shared with `doc`, which stays as it is. */
export function maskedCopy(family: Secrets, doc: Readonly<Doc>): Doc {
  const paths = family?.secrets ?? [];
  return maskSecrets(family, paths.reduce<Doc>((copy, path) => copiedAlong(copy, path.split(".")) as Doc, { ...doc }));
}

/** `node` (already a copy) with the objects and arrays on `path` (`a.b[].c`) copied, so that setting at the path
 * leaves the original alone. */
function copiedAlong(node: unknown, path: string[]): unknown {
  const [part, ...rest] = path;
  if (part === undefined || (rest.length === 0 && !part.endsWith("[]"))) return node;
  const key = part.replace(/\[\]$/, "");
  if (typeof node !== "object" || node === null || Array.isArray(node)) return node;
  const child = (node as Doc)[key];
  if (typeof child !== "object" || child === null) return node;
  const copy = (value: unknown) => (typeof value === "object" && value !== null ? copiedAlong(Array.isArray(value) ? [...value] : { ...value }, rest) : value);
  (node as Doc)[key] = part.endsWith("[]") && Array.isArray(child) ? child.map(copy) : copy(child);
  return node;
}
