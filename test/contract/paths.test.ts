import { describe, expect, it } from "vitest";
import { z } from "zod";
import { families, unwrap } from "pulumi-audience/sdk/contract";

/** The schemas a dotted wire path (`a.b[].c`) reaches inside `schema`; empty when the path names nothing. */
function resolve(schema: z.ZodType, path: string): z.ZodType[] {
  let current: z.ZodType[] = [schema];
  for (const part of path.split(".")) {
    const elements = part.endsWith("[]");
    const key = elements ? part.slice(0, -2) : part;
    current = current.flatMap((s) => member(s, key));
    if (elements) current = current.flatMap((s) => { const u = unwrap(s); return u instanceof z.ZodArray ? [u.def.element as z.ZodType] : []; });
  }
  return current;
}

function member(schema: z.ZodType, key: string): z.ZodType[] {
  const s = unwrap(schema);
  if (s instanceof z.ZodObject) {
    const field = (s.shape as Record<string, z.ZodType>)[key];
    return field && !(unwrap(field) instanceof z.ZodNever) ? [field] : [];
  }
  if (s instanceof z.ZodUnion) return (s.def.options as z.ZodType[]).flatMap((o) => member(o, key));
  return [];
}

const isText = (s: z.ZodType) => unwrap(s).def.type === "string";

describe("paths a family names exist in its schemas", () => {
  const all = Object.values(families);
  it.each(all.flatMap((f) => f.references.map((r) => [f.collection, r.path] as const)))("%s reference %s is an id member of its body", (collection, path) => {
    const family = families[collection as keyof typeof families];
    const found = resolve(family.creatable ? family.create : family.response, path);
    expect(found.length).toBeGreaterThan(0);
    expect(found.every(isText)).toBe(true);
  });

  it.each(all.flatMap((f) => f.secrets.map((p) => [f.collection, p] as const)))("%s secret %s is a text member of the response", (collection, path) => {
    const found = resolve(families[collection as keyof typeof families].response, path);
    expect(found.length).toBeGreaterThan(0);
    expect(found.every(isText)).toBe(true);
  });

  it.each(all.flatMap((f) => f.createOnly.map((p) => [f.collection, p] as const)))("%s create-only %s is a member of the create body", (collection, path) => {
    expect(resolve(families[collection as keyof typeof families].create, path).length).toBeGreaterThan(0);
  });

  it.each(all.filter((f) => f.creatable).map((f) => [f.collection, f] as const))("%s: read-only members are answered, never accepted", (_c, family) => {
    for (const key of family.readOnly) {
      expect(resolve(family.response, key).length, `${key} in response`).toBeGreaterThan(0);
      expect(resolve(family.create, key), `${key} in create`).toEqual([]);
    }
  });
});
