// The `audience` package's tokens: a resource family is `audience:index:<ClassName>`, its lookup
// `audience:index:get<ClassName>`, and the provider itself `pulumi:providers:audience`.
import { providerFamilies, type ProviderFamily } from "../runtime/families/index.ts";
import { functionToken, PACKAGE, resourceToken } from "../runtime/markers.ts";

export { functionToken, PACKAGE, resourceToken } from "../runtime/markers.ts";
export const PROVIDER_TYPE = `pulumi:providers:${PACKAGE}`;

/** Families a lookup serves: all but those whose definition says why they have none (`noLookup`). */
export function lookupFamilies(): ProviderFamily[] {
  return Object.values(providerFamilies).filter((providerFamily) => providerFamily.family.noLookup === undefined);
}

const byResource = new Map(Object.values(providerFamilies).map((providerFamily) => [resourceToken(providerFamily.family.className), providerFamily]));
const byFunction = new Map(lookupFamilies().map((providerFamily) => [functionToken(providerFamily.family.className), providerFamily]));

/** The type token of a URN (`urn:pulumi:stack::project::parent$type::name`). */
export function typeOfUrn(urn: string): string {
  const qualified = urn.split("::")[2] ?? "";
  return qualified.slice(qualified.lastIndexOf("$") + 1);
}

function known(map: Map<string, ProviderFamily>): string {
  return [...map.keys()].join(", ");
}

/** The family a resource type token names; fails listing the tokens this package has. */
export function familyOfResource(type: string): ProviderFamily {
  const providerFamily = byResource.get(type);
  if (!providerFamily) throw new Error(`unknown resource type ${JSON.stringify(type)}; the ${PACKAGE} package has ${known(byResource)}`);
  return providerFamily;
}

/** The family a resource type token names, or undefined when it is no resource of this package. */
export function nativeFamily(type: string): ProviderFamily | undefined {
  return byResource.get(type);
}

export function familyOfFunction(token: string): ProviderFamily {
  const providerFamily = byFunction.get(token);
  if (!providerFamily) throw new Error(`unknown function ${JSON.stringify(token)}; the ${PACKAGE} package has ${known(byFunction)}`);
  return providerFamily;
}
