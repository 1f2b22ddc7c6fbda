// A stack-level rule: the plan leaves no account holding more of a family than its quota allows.
import type { PolicyResource, StackValidationPolicy } from "@pulumi/policy";
import { PACKAGE } from "../../provider/runtime/markers.ts";
import { families } from "../../sdk/contract/index.ts";
import { audienceResource, isSecret, SECRET_TEXT, UNKNOWN, type AudienceResource } from "../resources.ts";

export interface QuotaConfig {
  /** Most resources of a class (by class name: `Target`) one account may hold. */
  quotas?: Record<string, number>;
  /**
   * Quotas of named accounts, over `quotas`: by the resources' `account`, `provider <name>` for the account of an
   * explicit provider of the native face, `default` for the default account.
   */
  accounts?: Record<string, Record<string, number>>;
}

/** How the default account (resources without `account`) is named in config and messages. */
export const DEFAULT_ACCOUNT = "default";

/** Pulumi names the providers it registers itself `default` or `default_<version>`. */
const DEFAULT_PROVIDER = /^default(_|$)/;

/**
 * The account a resource is charged to, named as drift names it: its `account`; else the explicit provider of the
 * native face it names (`provider north`: there an account is a provider); else the default account.
 */
function accountOf(found: PolicyResource, resource: AudienceResource): unknown {
  const account = resource.props["account"] ?? DEFAULT_ACCOUNT;
  const { provider } = found;
  const explicit = provider?.type === `pulumi:providers:${PACKAGE}` && !DEFAULT_PROVIDER.test(provider.name);
  return account === DEFAULT_ACCOUNT && explicit ? `provider ${provider.name}` : account;
}

const CLASS_NAMES = Object.values(families).map((family) => family.className);
const quotaTable = {
  type: "object",
  propertyNames: { enum: CLASS_NAMES },
  additionalProperties: { type: "integer", minimum: 0 },
} as const;

export const accountQuota: StackValidationPolicy = {
  name: "audience-account-quota",
  description: "The stack, once the plan is applied (what it holds and what it creates), holds no more resources of a class in an account than the account's quota; quotas come from config, as policies do not call the service.",
  enforcementLevel: "mandatory",
  configSchema: {
    properties: {
      quotas: { ...quotaTable, description: "Most resources of each class (by class name, e.g. Target) one account may hold." },
      accounts: { type: "object", additionalProperties: quotaTable, description: "Quotas by account name (`provider <name>` for an explicit provider of the native face, `default` for resources without `account`), over `quotas`." },
    },
  },
  validateStack: (args, reportViolation) => {
    const { quotas = {}, accounts = {} } = args.getConfig<QuotaConfig>();
    const held = new Map<string, Map<string, string[]>>();
    const secretAccounts = new Set<string>();
    for (const found of args.resources) {
      const resource = audienceResource(found);
      if (!resource) continue;
      const account = accountOf(found, resource);
      // An account not known yet cannot be charged: counted once known, at up.
      if (account === UNKNOWN || typeof account !== "string") continue;
      if (resource.props["account"] !== undefined && isSecret(resource, "account")) secretAccounts.add(account);
      const byClass = held.get(account) ?? new Map<string, string[]>();
      held.set(account, byClass);
      const names = byClass.get(resource.family.className) ?? [];
      byClass.set(resource.family.className, [...names, resource.label]);
    }
    for (const [account, byClass] of held) {
      for (const [className, names] of byClass) {
        const quota = accounts[account]?.[className] ?? quotas[className];
        if (quota === undefined || names.length <= quota) continue;
        // Sorted: the order the engine hands resources over varies between runs.
        const listed = [...names].sort((a, b) => a.localeCompare(b)).join(", ");
        reportViolation(`Account ${secretAccounts.has(account) ? SECRET_TEXT : JSON.stringify(account)}: the stack would hold ${names.length} ${className} resources (${listed}), over the account's quota of ${quota}.`);
      }
    }
  },
};
