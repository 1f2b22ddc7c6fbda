// Members an account cannot take for want of a feature (an identity graph, a feature store), found in preview.
import type * as pulumi from "@pulumi/pulumi";
import { accountFeatureErrors, families, type AccountFeature, type FamilyDef } from "pulumi-audience/sdk/contract";
import type { Environment } from "./environment.ts";
import { recordedWire } from "./parts.ts";
import type { Service } from "./service.ts";
import { camelPath, pathsOverlap, UNKNOWN, type Props } from "./shape.ts";

/**
 * The features set on the account (an identity graph, a feature store), read from the service: reads, so a
 * preview may make them. Undefined when they cannot be read; the service then refuses at create, as it would.
 */
async function lookUpAccountFeatures(service: () => Service): Promise<Set<AccountFeature> | undefined> {
  try {
    const calls = service();
    const [account, stores] = await Promise.all([calls.get(families.accounts, "current"), calls.list(families.feature_stores)]);
    const has = new Set<AccountFeature>();
    if (account.identity_graph != null) has.add("identity_graph");
    if (stores.length > 0) has.add("feature_store");
    return has;
  } catch {
    return undefined;
  }
}

/** Members the account cannot take for want of a feature, refused in preview naming the member and the feature. */
export async function featureFailures(env: Environment, family: FamilyDef, account: string | undefined, wire: Props, olds: Props, unknowns: string[]): Promise<pulumi.dynamic.CheckFailure[]> {
  const known = (error: { path: string }) => !unknowns.some((u) => pathsOverlap(u, error.path));
  if (account === UNKNOWN || !accountFeatureErrors(family, wire, new Set()).some(known)) return [];
  // Read at each check of such a member (few are): the account may gain the feature between two runs.
  const features = await lookUpAccountFeatures(() => env.service(account));
  if (!features) return [];
  return accountFeatureErrors(family, wire, features, recordedWire(family, olds)).filter(known).map((error) => {
    const property = camelPath(family.create, error.path);
    return { property, reason: `${property} ${error.message}` };
  });
}
