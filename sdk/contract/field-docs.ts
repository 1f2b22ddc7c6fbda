// The one reading of the field docs each family holds (`docs` in its definition) that program types, provider
// schemas and the docs-coverage test share: a member's text, the facts its schema states, its deprecation.
import type { z } from "zod";
import type { FamilyDef } from "./family.ts";
import { commonDocs, docParts, memberFacts, membersOf, type Member, type MemberDoc } from "./docs.ts";
import { families, type Collection } from "./registry.ts";
import { camelKey } from "./naming.ts";

/** A member with the doc a reader sees: its text followed by the facts its schema and family state. */
export interface DocumentedMember extends Member {
  /** Undefined when the member has no doc (the docs-coverage test fails on it). */
  description: string | undefined;
  /** What to use instead, for a deprecated member. */
  deprecated?: string;
}

/** The doc written for a member path of a family (its own docs first, then the common members). */
export function memberDoc(collection: Collection, path: string): MemberDoc | undefined {
  const own = (families[collection] as FamilyDef).docs;
  return Object.hasOwn(own, path) ? own[path] : Object.hasOwn(commonDocs, path) ? commonDocs[path as keyof typeof commonDocs] : undefined;
}

/** Every member of `schema` (a family's create or response schema), each with its description. */
export function documentedMembers(collection: Collection, family: FamilyDef, schema: z.ZodType): DocumentedMember[] {
  return membersOf(schema).map((member) => {
    const doc = memberDoc(collection, member.path);
    if (doc === undefined) return { ...member, description: undefined };
    const parts = docParts(doc);
    // A union's discriminator shows no doc of its own in editors, so its owner says when it replaces.
    const replacingChildren = family.createOnly.filter((p) => p.startsWith(`${member.path}.`))
      .map((p) => `Changing \`${p.slice(member.path.length + 1).split(".").map(camelKey).join(".")}\` replaces the resource.`);
    const facts = [...memberFacts(member.schema, family.createOnly.includes(member.path)), ...replacingChildren];
    const description = [parts.doc, ...facts].join(" ");
    return parts.deprecated === undefined ? { ...member, description } : { ...member, description, deprecated: parts.deprecated };
  });
}
