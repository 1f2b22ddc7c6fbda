// What the rules read of a resource the analyzer hands them: its family (by either face's type token), its members
// in the contract's wire names, with the values not known yet (a preview's) marked, and the names a program wrote.
import { UnknownValueError } from "@pulumi/policy";
import { UNKNOWN as UNKNOWN_TEXT } from "../provider/protocol/markers.ts";
import { camelPath } from "../provider/runtime/lifecycle/shape.ts";
import { CREDENTIAL_SOURCES_KEY, dynamicType, resourceToken, type CredentialSource } from "../provider/runtime/markers.ts";
import { camelKey, families, isObject, renameFields, schemaName, wireName, type Collection, type FamilyDef } from "../sdk/contract/index.ts";
import { secretMembers, type SecretTree } from "./secret-members.ts";

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
  /** The resource's Pulumi name. */
  name: string;
  /** Where the values the program marked secret are, in wire names; undefined when not known (any may be secret). */
  secrets: SecretTree | undefined;
  /**
   * How messages name the resource: the service name the program gave (`name`); the Pulumi name when it has none,
   * or with `(name [secret])` when that name is secret.
   */
  label: string;
}

/** What a message shows in place of a value the program marked secret. */
export const SECRET_TEXT = "[secret]";

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
  const recorded = secretMembers(resource.props);
  const secrets = recorded === undefined ? undefined : (renameFields(family.create, recorded, TO_WIRE) as SecretTree);
  const found = { collection, family, wire, props, name: resource.name, secrets };
  const serviceName = wire["name"];
  const label = typeof serviceName !== "string" ? resource.name : isSecret(found, "name") ? `${resource.name} (name ${SECRET_TEXT})` : serviceName;
  return { ...found, label };
}

/**
 * Whether the value at a wire path (`name`, `options.type`) is, or holds, one the program marked secret; any may be
 * when the props carry no record of them.
 */
export function isSecret(resource: Pick<AudienceResource, "secrets">, wirePath: string): boolean {
  let node = resource.secrets;
  if (node === undefined) return true;
  for (const key of wirePath.split(/[.[\]]+/).filter(Boolean)) {
    if (node === true) return true;
    node = Array.isArray(node) ? (node as readonly (SecretTree | undefined)[])[Number(key)] : (node as Record<string, SecretTree | undefined>)[key];
    if (node === undefined) return false;
  }
  return true;
}

/** A member's value as a message shows it: quoted, or `[secret]` when the program marked it secret. */
export function shown(resource: AudienceResource, wirePath: string, value: unknown): string {
  return isSecret(resource, wirePath) ? SECRET_TEXT : JSON.stringify(value);
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

/** `Target "daily-export"`, or `Target export (name [secret])`: how messages name a resource. */
export function named(resource: AudienceResource): string {
  const secretName = typeof resource.wire["name"] === "string" && isSecret(resource, "name");
  return `${resource.family.className} ${secretName ? resource.label : JSON.stringify(resource.label)}`;
}
