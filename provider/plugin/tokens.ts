// The `audience` package's tokens: a resource family is `audience:index:<ClassName>`, its lookup
// `audience:index:get<ClassName>`, and the provider itself `pulumi:providers:audience`.
import { kinds, type Kind } from "../kinds/index.ts";

export const PACKAGE = "audience";
export const PROVIDER_TYPE = `pulumi:providers:${PACKAGE}`;
/** The type a resource of this package had under the dynamic provider: the alias that moves a stack over. */
export function dynamicType(kind: Kind): string {
  return `pulumi-nodejs:dynamic/${PACKAGE}:${kind.name}`;
}

export function resourceToken(kind: Kind): string {
  return `${PACKAGE}:index:${kind.name}`;
}

export function functionToken(kind: Kind): string {
  return `${PACKAGE}:index:get${kind.name}`;
}

/** Families a lookup serves: every listable one (not a singleton, not a file). */
export function lookupKinds(): Kind[] {
  return Object.values(kinds).filter((kind) => !kind.family.singleton && kind.body === "json");
}

const byResource = new Map(Object.values(kinds).map((kind) => [resourceToken(kind), kind]));
const byFunction = new Map(lookupKinds().map((kind) => [functionToken(kind), kind]));

/** The type token of a URN (`urn:pulumi:stack::project::parent$type::name`). */
export function typeOfUrn(urn: string): string {
  const qualified = urn.split("::")[2] ?? "";
  return qualified.slice(qualified.lastIndexOf("$") + 1);
}

function known(map: Map<string, Kind>): string {
  return [...map.keys()].join(", ");
}

/** The family a resource type token names; fails listing the tokens this package has. */
export function kindOfResource(type: string): Kind {
  const kind = byResource.get(type);
  if (!kind) throw new Error(`unknown resource type ${JSON.stringify(type)}; the ${PACKAGE} package has ${known(byResource)}`);
  return kind;
}

export function kindOfFunction(token: string): Kind {
  const kind = byFunction.get(token);
  if (!kind) throw new Error(`unknown function ${JSON.stringify(token)}; the ${PACKAGE} package has ${known(byFunction)}`);
  return kind;
}
