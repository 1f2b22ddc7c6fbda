// What the rules read of a resource the analyzer hands them: its family (by either face's type token), its members
// in the contract's wire names, with the values not known yet (a preview's) marked, and the names a program wrote.
import { UnknownValueError } from "@pulumi/policy";
import { UNKNOWN as UNKNOWN_TEXT } from "../provider/protocol/markers.ts";
import { camelPath } from "../provider/runtime/lifecycle/shape.ts";
import { CREDENTIAL_SOURCES_KEY, dynamicType, resourceToken, type CredentialSource } from "../provider/runtime/markers.ts";
import { camelKey, families, isObject, renameFields, schemaName, wireName, type Collection, type FamilyDef } from "../sdk/contract/index.ts";

/** A value not known until the resource exists (during preview). */
export const UNKNOWN: unique symbol = Symbol("unknown");

/** A resource of this package as a rule sees it. */
export interface AudienceResource {
  collection: Collection;
  family: FamilyDef;
  /** The members in wire names (`options.private_key`); UNKNOWN where not known yet. */
  wire: Record<string, unknown>;
  /** The controls and markers as given (`account`, `adoptId`, CREDENTIAL_SOURCES_KEY); UNKNOWN where not known yet. */
  props: Record<string, unknown>;
  /** The service name the program gave (`name`), for messages; the Pulumi resource name when it has none. */
  label: string;
}

const byType = new Map<string, Collection>(
  (Object.entries(families) as [Collection, FamilyDef][]).flatMap(([collection, family]) => [
    [dynamicType(family.className), collection],
    [resourceToken(family.className), collection],
  ]),
);

/** The family of a type token of either face (`pulumi-nodejs:dynamic/audience:Target`, `audience:index:Target`). */
export function collectionOfType(type: string): Collection | undefined {
  return byType.get(type);
}

/**
 * A plain copy of the analyzer's props: its proxy throws on reading a value unknown in preview, which would end the
 * rule with a message of its own ("can't run policy ... during preview") even where the rule needs no such value.
 */
export function known(value: unknown): unknown {
  if (value === UNKNOWN_TEXT) return UNKNOWN;
  if (Array.isArray(value)) return Array.from({ length: value.length }, (_, i) => known(read(value, i)));
  if (!isObject(value)) return value;
  return Object.fromEntries(Object.keys(value).map((key) => [key, known(read(value, key))]));
}

function read(from: object, key: PropertyKey): unknown {
  try {
    return (from as Record<PropertyKey, unknown>)[key];
  } catch (error) {
    if (error instanceof UnknownValueError) return UNKNOWN;
    throw error;
  }
}

const TO_WIRE = { from: [camelKey, schemaName, wireName], to: wireName };

/** The resource of this package behind an analyzer's resource, or undefined for anything else. */
export function audienceResource(resource: { type: string; name: string; props: Record<string, unknown> }): AudienceResource | undefined {
  const collection = collectionOfType(resource.type);
  if (collection === undefined) return undefined;
  const family = families[collection] as FamilyDef;
  const props = known(resource.props) as Record<string, unknown>;
  const wire = renameFields(family.create, props, TO_WIRE) as Record<string, unknown>;
  const label = typeof wire["name"] === "string" ? wire["name"] : resource.name;
  return { collection, family, wire, props, label };
}

/** Each value at a member path (`[]` array elements, `*` map values), with its concrete wire path. */
export function valuesAtPath(doc: unknown, path: string): { at: string; value: unknown }[] {
  const parts = path.split(".");
  const out: { at: string; value: unknown }[] = [];
  const walk = (node: unknown, i: number, at: string): void => {
    if (i === parts.length) {
      if (node !== undefined && node !== null) out.push({ at, value: node });
      return;
    }
    const part = parts[i]!;
    if (part === "*") {
      if (isObject(node)) for (const [key, child] of Object.entries(node)) walk(child, i + 1, `${at}.${key}`);
      return;
    }
    const isArray = part.endsWith("[]");
    const key = isArray ? part.slice(0, -2) : part;
    if (!isObject(node)) return;
    const child = node[key];
    const here = at === "" ? key : `${at}.${key}`;
    if (!isArray) return walk(child, i + 1, here);
    if (Array.isArray(child)) child.forEach((element, n) => walk(element, i + 1, `${here}[${n}]`));
    else if (child === UNKNOWN) walk(child, parts.length, here);
  };
  walk(doc, 0, "");
  return out;
}

/** The member as the program names it (`options.privateKey`, `filter.outcomeScore[0]`). */
export function programPath(resource: AudienceResource, wirePath: string): string {
  return camelPath(resource.family.create, wirePath);
}

/** The class's record of where each credential came from, by camelCase path; UNKNOWN or undefined when it has none. */
export function credentialSources(resource: AudienceResource): Record<string, CredentialSource> | typeof UNKNOWN | undefined {
  const recorded = resource.props[CREDENTIAL_SOURCES_KEY];
  if (recorded === UNKNOWN) return UNKNOWN;
  return isObject(recorded) ? (recorded as Record<string, CredentialSource>) : undefined;
}

/** `Target "daily-export"`: how messages name a resource. */
export function named(resource: AudienceResource): string {
  return `${resource.family.className} ${JSON.stringify(resource.label)}`;
}
