// The one factory behind every native resource class: a `CustomResource` of the `audience:index:<Name>` token,
// served by the `audience` provider plugin, with the family's typed args and outputs (the same types as the
// dynamic classes). An alias from the dynamic type moves a resource a dynamic stack holds without replacing it.
import * as pulumi from "@pulumi/pulumi";
import type { Collection } from "pulumi-audience/sdk/contract";
import { VERSION } from "../plugin/manifest.ts";
import type { PropertyMap } from "../protocol/values.ts";
import { dynamicType, functionToken, resourceToken } from "../runtime/markers.ts";
import type { LookupInputs } from "../runtime/resources/lookup.ts";
import { becomeProgramError } from "../runtime/resources/program-error.ts";
import { definesOutputs, registration, valuePromise, type Owner } from "../runtime/resources/resource.ts";
import type { Args, Outputs, ResourceControls, Result } from "../runtime/resources/types.ts";

export type NativeResource<C extends Collection> = pulumi.CustomResource & Outputs<C>;

export interface NativeResourceClass<C extends Collection> {
  new (name: string, args: Args<C>, opts?: pulumi.CustomResourceOptions): NativeResource<C>;
  /** Reads an existing resource into the program without managing it. */
  get(name: string, id: pulumi.Input<string>, state?: Pick<ResourceControls, "account">, opts?: pulumi.CustomResourceOptions): NativeResource<C>;
}

/**
 * The program's view of a family's outputs: the plugin answers operator members in the schema's names (`$gte`),
 * a state from before in the program's (`_gte`); the program reads `_gte` either way. Only the outputs that hold
 * operators are looked into, with the contract loaded when the first of them is read.
 */
function programOutputs(collection: Collection, renamedOutputs: readonly string[]) {
  const renamed = new Set(renamedOutputs);
  const programValues = async (values: PropertyMap) => {
    const [{ families }, { programNamed }] = await Promise.all([import("pulumi-audience/sdk/contract"), import("../plugin/names.ts")]);
    return programNamed(families[collection].response, values);
  };
  return {
    member: (name: string, output: pulumi.Output<unknown>) =>
      renamed.has(name) ? output.apply(async (value) => (await programValues({ [name]: value } as PropertyMap))[name]) : output,
    result: async <T>(value: T): Promise<T> => (await programValues(value as PropertyMap)) as T,
  };
}

/**
 * The alias from the dynamic type. The runtime turns an alias spec into a URN with several outputs of its own for
 * every resource, so a resource without a parent is given the URN the spec names; one with a parent is given the
 * spec, whose URN needs the parent's.
 */
function dynamicAlias(type: string, name: string, opts: pulumi.CustomResourceOptions): pulumi.Alias | string {
  return opts.parent === undefined ? `urn:pulumi:${pulumi.getStack()}::${pulumi.getProject()}::${type}::${name}` : { type };
}

export function nativeClass<C extends Collection>(collection: C): NativeResourceClass<C> {
  const { className, outputNames, renamedOutputs, props, additionalSecretOutputs } = registration(collection);
  const aliasType = dynamicType(className);

  class Resource extends pulumi.CustomResource {
    constructor(name: string, args: Args<C>, opts: pulumi.CustomResourceOptions = {}) {
      const owner: Owner = {};
      super(resourceToken(className), name, props(args, owner), {
        ...opts,
        version: opts.version ?? VERSION,
        aliases: [...(opts.aliases ?? []), dynamicAlias(aliasType, name, opts)],
        additionalSecretOutputs: additionalSecretOutputs(opts),
      });
      owner.resource = this;
    }

    static get(name: string, id: pulumi.Input<string>, state: Pick<ResourceControls, "account"> = {}, opts: pulumi.CustomResourceOptions = {}) {
      return new Resource(name, state as Args<C>, { ...opts, id });
    }
  }
  Object.defineProperty(Resource, "name", { value: className });
  definesOutputs(Resource.prototype, outputNames, programOutputs(collection, renamedOutputs).member);
  return Resource as unknown as NativeResourceClass<C>;
}

/** How the runtime words a lookup the provider answered with an error: the RPC, then the provider's message. */
const REFUSED = /^invocation of \S+ returned an error: /;

/**
 * A failed lookup in the provider's words alone, printed once as the dynamic face's are: the runtime rejects with a
 * plain Error naming the RPC, which it prints with the runtime's own stack. Any other failure stays as it is.
 */
function lookupFailure(error: unknown): unknown {
  return error instanceof Error && REFUSED.test(error.message) ? becomeProgramError(error, error.message.replace(REFUSED, "")) : error;
}

/** The promise and `Output` forms of a family's lookup, answered by the provider's `get<Name>` function. */
export function nativeLookups<C extends Collection>(collection: C) {
  const { className, renamedOutputs } = registration(collection);
  const token = functionToken(className);
  const { result } = programOutputs(collection, renamedOutputs);
  const get = (args: LookupInputs, opts: pulumi.InvokeOptions = {}): Promise<Result<C>> =>
    (pulumi.runtime.invoke(token, args, { ...opts, version: opts.version ?? VERSION }) as Promise<Result<C>>).then(result, (error: unknown) => {
      throw lookupFailure(error);
    });
  const getOutput = (args: LookupInputs, opts: pulumi.InvokeOutputOptions = {}): pulumi.Output<Result<C>> => {
    const invoked = pulumi.runtime.invokeOutput<Result<C>>(token, args, { ...opts, version: opts.version ?? VERSION });
    // The output keeps what the invoke rejected with, which each resource fed by it reports: changed in place.
    valuePromise(invoked)?.catch(lookupFailure);
    return invoked.apply(result);
  };
  return { get, getOutput };
}

/** Credentials of one account, as an explicit provider takes them. */
export interface ProviderArgs {
  /** The account's API key (kept secret); AUDIENCE_API_KEY where the plugin runs when absent. */
  apiKey?: pulumi.Input<string>;
  /** The service's base URL, e.g. `https://<service>/v1`; AUDIENCE_BASE_URL when absent. */
  baseUrl?: pulumi.Input<string>;
  /** Retries of a request that failed in a way that may pass (a 429 or 503, a dropped connection); AUDIENCE_MAX_RETRIES, else 10, when absent. */
  maxRetries?: pulumi.Input<number>;
}

/**
 * An explicit provider: one per account. Pass it as `{ provider }` to the resources and lookups of that account;
 * resources without one use the default provider, configured from `audience:apiKey` / `audience:baseUrl`.
 */
export class Provider extends pulumi.ProviderResource {
  declare readonly baseUrl: pulumi.Output<string | undefined>;

  constructor(name: string, args: ProviderArgs = {}, opts: pulumi.ResourceOptions = {}) {
    const apiKey = args.apiKey === undefined ? undefined : pulumi.secret(args.apiKey);
    super("audience", name, { apiKey, baseUrl: args.baseUrl, maxRetries: args.maxRetries }, { ...opts, version: opts.version ?? VERSION });
  }
}
