// The @pulumi/policy test style: a policy's validate called with the args the analyzer builds (props behind the same
// unknown-checking proxy), collecting what it reports.
import { unknownCheckingProxy, type PolicyResource, type ResourceValidationArgs, type ResourceValidationPolicy, type StackValidationArgs, type StackValidationPolicy } from "@pulumi/policy";

/** Pulumi's unknown value as the analyzer receives it. */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

export const dynamicType = (className: string) => `pulumi-nodejs:dynamic/audience:${className}`;
export const nativeType = (className: string) => `audience:index:${className}`;

export interface Crafted {
  type: string;
  name: string;
  props: Record<string, unknown>;
}

/** The props as the engine sends them to an analyzer: without `__`-named inputs (SkipInternalKeys). */
const analyzed = (props: Record<string, unknown>) => unknownCheckingProxy(Object.fromEntries(Object.entries(props).filter(([key]) => !key.startsWith("__"))));

const urnOf = (r: Crafted) => `urn:pulumi:dev::policy::${r.type}::${r.name}`;
const OPTS = { protect: false, ignoreChanges: [], aliases: [], customTimeouts: { createSeconds: 0, updateSeconds: 0, deleteSeconds: 0 }, additionalSecretOutputs: [] };
const unsupported = () => {
  throw new Error("not used by these rules");
};

/** What `policy` reports for one resource, with `config` as the pack's config gives it. */
export async function runResourcePolicy(policy: ResourceValidationPolicy, resource: Crafted, config: object = {}): Promise<string[]> {
  const reported: string[] = [];
  const args: ResourceValidationArgs = {
    type: resource.type,
    name: resource.name,
    urn: urnOf(resource),
    props: analyzed(resource.props),
    opts: OPTS,
    stackTags: new Map(),
    isType: unsupported,
    asType: unsupported,
    getConfig: <T extends object>() => config as T,
    notApplicable: unsupported,
  };
  const validations = [policy.validateResource ?? []].flat();
  for (const validate of validations) await validate(args, (message) => reported.push(message));
  return reported;
}

/** What `policy` reports for a stack of resources (their outputs), each message with the URN it names. */
export async function runStackPolicy(policy: StackValidationPolicy, resources: Crafted[], config: object = {}): Promise<{ message: string; urn: string | undefined }[]> {
  const reported: { message: string; urn: string | undefined }[] = [];
  const args: StackValidationArgs = {
    resources: resources.map((r): PolicyResource => ({
      type: r.type, name: r.name, urn: urnOf(r), props: analyzed(r.props), opts: OPTS,
      dependencies: [], propertyDependencies: {}, isType: unsupported, asType: unsupported,
    })),
    stackTags: new Map(),
    getConfig: <T extends object>() => config as T,
    notApplicable: unsupported,
  };
  await policy.validateStack(args, (message, urn) => reported.push({ message, urn }));
  return reported;
}

export { urnOf };
