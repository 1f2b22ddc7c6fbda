// Every Target and Scope (or the classes configured) named by the team's naming rule.
import type { ResourceValidationPolicy } from "@pulumi/policy";
import { families } from "../../sdk/contract/index.ts";
import { audienceResource, named, shown } from "../resources.ts";

export interface NamingConfig {
  /** A regular expression every `name` must match; the rule does nothing without one. */
  pattern?: string;
  /** The classes held to it. */
  classes?: string[];
}

const CLASS_NAMES = Object.values(families).map((family) => family.className);
export const DEFAULT_NAMED_CLASSES: readonly string[] = [families.scopes.className, families.targets.className];

/**
 * The configured pattern, compiled as `new RegExp(pattern)` compiles it, without flags (the `u` flag would refuse
 * escapes such as `\_` that a JavaScript regular expression takes); a pattern that does not compile is the config's
 * error, named as such. The policy host prints an error by its stack, so this one's stack is its message: the pack's
 * frames tell a team nothing.
 */
function patternOf(pattern: string): RegExp {
  try {
    return new RegExp(pattern);
  } catch (error) {
    const refused = new Error(`audience-naming: the configured pattern ${JSON.stringify(pattern)} is not a JavaScript regular expression (${(error as Error).message}); fix "pattern" in the policy pack's config`);
    refused.stack = refused.message;
    throw refused;
  }
}

export const naming: ResourceValidationPolicy = {
  name: "audience-naming",
  description: "Every Target and Scope (or the classes configured) has a name matching the team's naming rule, so a resource in the service's console tells whose it is.",
  enforcementLevel: "advisory",
  configSchema: {
    properties: {
      pattern: { type: "string", description: "A JavaScript regular expression the `name` member must match, e.g. ^growth-[a-z0-9-]+$." },
      classes: { type: "array", items: { type: "string", enum: CLASS_NAMES }, default: [...DEFAULT_NAMED_CLASSES], description: "The resource classes held to the naming rule." },
    },
  },
  validateResource: (args, reportViolation) => {
    const { pattern, classes = DEFAULT_NAMED_CLASSES } = args.getConfig<NamingConfig>();
    if (pattern === undefined) return;
    const resource = audienceResource(args);
    if (!resource || !classes.includes(resource.family.className)) return;
    const name = resource.wire["name"];
    if (typeof name !== "string" || patternOf(pattern).test(name)) return;
    reportViolation(`${named(resource)}: name ${shown(resource, "name", name)} does not match the naming rule ${pattern}.`);
  },
};
