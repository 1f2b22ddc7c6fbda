// A stack-level rule: the plan leaves no account holding more of a family than its quota allows.
import type { StackValidationPolicy } from "@pulumi/policy";
import { families } from "../../sdk/contract/index.ts";
import { audienceResource, UNKNOWN } from "../resources.ts";

export interface QuotaConfig {
  /** Most resources of a class (by class name: `Target`) one account may hold. */
  quotas?: Record<string, number>;
  /** Quotas of named accounts (the resources' `account`), over `quotas`; `default` is the default account. */
  accounts?: Record<string, Record<string, number>>;
}

/** How the default account (resources without `account`) is named in config and messages. */
export const DEFAULT_ACCOUNT = "default";

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
      accounts: { type: "object", additionalProperties: quotaTable, description: "Quotas by account name (`default` for resources without `account`), over `quotas`." },
    },
  },
  validateStack: (args, reportViolation) => {
    const { quotas = {}, accounts = {} } = args.getConfig<QuotaConfig>();
    const held = new Map<string, Map<string, string[]>>();
    for (const found of args.resources) {
      const resource = audienceResource(found);
      if (!resource) continue;
      const account = resource.props["account"] ?? DEFAULT_ACCOUNT;
      // An account not known yet cannot be charged: counted once known, at up.
      if (account === UNKNOWN || typeof account !== "string") continue;
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
        reportViolation(`Account ${JSON.stringify(account)}: the stack would hold ${names.length} ${className} resources (${listed}), over the account's quota of ${quota}.`);
      }
    }
  },
};
