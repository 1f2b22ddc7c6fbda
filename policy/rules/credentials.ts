// Credentials only from secrets: a connection's password, private key, token or client secret written in the program
// (or read from plain config) is a violation naming the member. (An account's API key and a webhook endpoint's signing
// key are credentials too, but only the service answers them: a program cannot write them.)
import type { ResourceValidationPolicy } from "@pulumi/policy";
import { camelKey } from "../../sdk/contract/index.ts";
import { audienceResource, credentialSources, named, UNKNOWN, valuesAtPath } from "../resources.ts";

export interface CredentialsConfig {
  /**
   * Whether a credential the class kept no record of is flagged: one declared through another language's SDK or
   * YAML, whose origin the analyzer cannot see (every credential reaches it secret). Off by default.
   */
  flagUnrecorded?: boolean;
}

export const credentialsFromSecrets: ResourceValidationPolicy = {
  name: "audience-credentials-from-secrets",
  description: "Credentials a program writes (a connection's password, private key, token or client secret) come only from secrets: config.requireSecret, pulumi.secret or a secret output.",
  enforcementLevel: "mandatory",
  configSchema: {
    properties: {
      flagUnrecorded: { type: "boolean", default: false, description: "Flag credentials of resources declared without the TypeScript classes' record of their origin (other languages, YAML)." },
    },
  },
  validateResource: (args, reportViolation) => {
    const resource = audienceResource(args);
    if (!resource || resource.family.secrets.length === 0) return;
    const { flagUnrecorded = false } = args.getConfig<CredentialsConfig>();
    const sources = credentialSources(resource);
    if (sources === UNKNOWN) return;
    for (const path of resource.family.secrets) {
      const member = path.split(".").map(camelKey).join(".");
      // A member inside a value not known yet may not be there: decided when it is known (at up).
      if (valuesAtPath(resource.wire, path).length === 0) continue;
      const source = sources?.[member];
      if (source === "plain") {
        reportViolation(`${named(resource)}: ${member} is given in plain text (a string in the program or non-secret config), so it is in the program's source; pass a secret instead (config.requireSecret, pulumi.secret or a secret output).`);
      } else if (source === undefined && flagUnrecorded) {
        // Secret config and a literal reach the pack alike (secret): say what is known and what can be done.
        reportViolation(`${named(resource)}: ${member} cannot be proven to come from a secret: only the pulumi-audience TypeScript classes record where a credential came from, and this resource was declared without them (Pulumi YAML, Python, Go); declare it through the TypeScript classes, or run this stack's policy with flagUnrecorded set to false.`);
      }
    }
  },
};
