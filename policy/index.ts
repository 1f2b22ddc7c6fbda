// `pulumi-audience/policy`: the CrossGuard rules of the pack shipped in this folder, for teams that compose their own
// pack (`new PolicyPack("ours", { policies: [...audiencePolicies, ...their own] })`). See docs/policy.md.
import type { Policies } from "@pulumi/policy";
import { credentialsFromSecrets } from "./rules/credentials.ts";
import { noDeprecated } from "./rules/deprecated.ts";
import { identifiedDeliveryAllowList } from "./rules/identified-delivery.ts";
import { noImputedIdentified } from "./rules/imputed-identified.ts";
import { naming } from "./rules/naming.ts";
import { accountQuota } from "./rules/quota.ts";
import { scopeCreatedInPreview } from "./rules/scope-in-preview.ts";

export { credentialsFromSecrets, type CredentialsConfig } from "./rules/credentials.ts";
export { noDeprecated } from "./rules/deprecated.ts";
export { DEFAULT_ALLOWED_DESTINATIONS, DESTINATION_KINDS, identifiedDeliveryAllowList, type IdentifiedDeliveryConfig } from "./rules/identified-delivery.ts";
export { noImputedIdentified } from "./rules/imputed-identified.ts";
export { DEFAULT_NAMED_CLASSES, naming, type NamingConfig } from "./rules/naming.ts";
export { accountQuota, DEFAULT_ACCOUNT, type QuotaConfig } from "./rules/quota.ts";
export { scopeCreatedInPreview } from "./rules/scope-in-preview.ts";
export { audienceResource, collectionOfType, type AudienceResource } from "./resources.ts";

/** Every rule of the pack, each at its default enforcement level. */
export const audiencePolicies: Policies = [
  credentialsFromSecrets,
  identifiedDeliveryAllowList,
  scopeCreatedInPreview,
  noDeprecated,
  naming,
  accountQuota,
  noImputedIdentified,
];
