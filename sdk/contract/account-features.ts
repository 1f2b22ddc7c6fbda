// Account features: what an account may have set on it that some members need, and the refusals of members set
// without them.
import type { FieldError } from "./validation.ts";
import { jsonEqual } from "./merge-patch.ts";
import { valueAt } from "./paths.ts";

/**
 * What an account may have set on it that some members need: `identity_graph` (the account's `identity_graph`)
 * and `feature_store` (a feature store in the account).
 */
export type AccountFeature = "identity_graph" | "feature_store";

export const ACCOUNT_FEATURE_NAMES: Record<AccountFeature, string> = {
  identity_graph: "an identity graph (the account's identity_graph)",
  feature_store: "a feature store (POST /feature_stores)",
};

/** A member (dotted wire path) that is refused unless the account has every one of `features`. */
export interface AccountFeatureRule {
  path: string;
  features: readonly AccountFeature[];
}

/**
 * The members of `doc` set without an account feature they need, each naming the feature. A member is held to
 * its rule when it is set and non-empty; with `before` (an update), only when it changed.
 */
export function accountFeatureErrors(family: { accountFeatures: readonly AccountFeatureRule[] }, doc: unknown, has: ReadonlySet<AccountFeature>, before?: unknown): FieldError[] {
  const errors: FieldError[] = [];
  for (const rule of family.accountFeatures) {
    const value = valueAt(doc, rule.path);
    if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) continue;
    if (before !== undefined && jsonEqual(valueAt(before, rule.path), value)) continue;
    const missing = rule.features.filter((f) => !has.has(f));
    if (missing.length === 0) continue;
    errors.push({
      path: rule.path,
      message: `needs an account with ${missing.map((f) => ACCOUNT_FEATURE_NAMES[f]).join(" and ")}, which this account does not have`,
      context: { errorType: "account_feature_required" },
    });
  }
  return errors;
}
