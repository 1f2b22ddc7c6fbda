// The @pulumi/policy test style: a policy's validate called with the args the analyzer builds (props sent as the
// engine sends them, secrets marked, and read through the pack's own deserializer and unknown-checking proxy),
// collecting what it reports.
import { unknownCheckingProxy, type PolicyProviderResource, type PolicyResource, type ResourceValidationArgs, type ResourceValidationPolicy, type StackValidationArgs, type StackValidationPolicy } from "@pulumi/policy";
import deserialize from "@pulumi/policy/deserialize.js";
import { Struct } from "google-protobuf/google/protobuf/struct_pb.js";

/** Pulumi's unknown value as the analyzer receives it. */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

export const dynamicType = (className: string) => `pulumi-nodejs:dynamic/audience:${className}`;
export const nativeType = (className: string) => `audience:index:${className}`;

export interface Crafted {
  type: string;
  name: string;
  props: Record<string, unknown>;
  provider?: PolicyProviderResource;
}

/** A value the program marked secret, as the engine sends it to an analyzer. */
export const secret = (value: unknown) => ({ "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", value });

/**
 * The props as the engine sends them to an analyzer (without `__`-named inputs: SkipInternalKeys), read as the
 * policy host reads them: @pulumi/policy's deserializer (looked up at each call, as its server does), then its proxy.
 */
const analyzed = (props: Record<string, unknown>) => {
  const sent = Struct.fromJavaScript(Object.fromEntries(Object.entries(props).filter(([key]) => !key.startsWith("__"))) as never);
  return unknownCheckingProxy((deserialize as { deserializeProperties(struct: Struct, proxySecrets: boolean): unknown }).deserializeProperties(sent, false));
};

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
    ...(resource.provider ? { provider: resource.provider } : {}),
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
      ...(r.provider ? { provider: r.provider } : {}),
    })),
    stackTags: new Map(),
    getConfig: <T extends object>() => config as T,
    notApplicable: unsupported,
  };
  await policy.validateStack(args, (message, urn) => reported.push({ message, urn }));
  return reported;
}

export { urnOf };
