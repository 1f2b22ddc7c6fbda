// The one factory behind every resource class: a dynamic resource with the type token
// `pulumi-nodejs:dynamic/audience:<Name>`, its family's `__provider` shim and the family's typed args and outputs.
import * as pulumi from "@pulumi/pulumi";
import type { Collection } from "pulumi-audience/sdk/contract";
import { PROVIDER_KEY } from "../../protocol/markers.ts";
import { CREDENTIAL_SOURCES_KEY, dynamicType, REPLACE_ON_CHANGES_KEY, type CredentialSource } from "../markers.ts";
import { registrations } from "../generated/registrations.ts";
import { ProgramError } from "./program-error.ts";
import { providerModule } from "./shim.ts";
import { readTopLevelFrames } from "./source-position.ts";
import type { Args, Outputs, ResourceControls } from "./types.ts";

readTopLevelFrames();

export type AudienceResource<C extends Collection> = pulumi.dynamic.Resource & Outputs<C>;

export interface ResourceClass<C extends Collection> {
  new (name: string, args: Args<C>, opts?: pulumi.CustomResourceOptions): AudienceResource<C>;
  /** Reads an existing resource into the program without managing it. */
  get(name: string, id: pulumi.Input<string>, state?: Pick<ResourceControls, "account">, opts?: pulumi.CustomResourceOptions): AudienceResource<C>;
}

/**
 * A program's value with the credential at `path` made secret. Only that member is wrapped, so the members around
 * it read as values in plans and state (the engine copies secretness from inputs to outputs member by member).
 * A whole object given as an Output or a Promise cannot be entered before it resolves: it is kept secret whole.
 */
function withSecret(value: unknown, path: readonly string[]): unknown {
  if (value === undefined) return value;
  const [key, ...rest] = path;
  if (key === undefined || pulumi.Output.isInstance(value) || value instanceof Promise) return pulumi.secret(value);
  if (typeof value !== "object" || value === null || Array.isArray(value) || !(key in value)) return value;
  return { ...value, [key]: withSecret((value as Record<string, unknown>)[key], rest) };
}

/**
 * The value of an Output once known, or undefined while it is not (a preview). `promise()` is the SDK's own way of
 * awaiting one without running a callback; `apply`'s would never run for an unknown value.
 */
async function knownValue(output: pulumi.Output<unknown>): Promise<unknown> {
  return (output as unknown as { promise(): Promise<unknown> }).promise();
}

/**
 * Where the credential at `path` inside a program's value came from, or undefined when the value has none. A secret
 * Output anywhere on the way makes it secret; a plain Output cannot hold a secret inside (secretness spreads to the
 * whole), so what it holds is plain text: the credentials its value holds once known, any it may hold until then
 * (the policy asks only about members given).
 */
async function credentialSource(value: unknown, path: readonly string[]): Promise<CredentialSource | undefined> {
  if (value === undefined || value === null) return undefined;
  if (pulumi.Output.isInstance(value)) {
    if (await pulumi.isSecret(value)) return "secret";
    const known = path.length === 0 ? undefined : await knownValue(value);
    return known === undefined ? "plain" : credentialSource(known, path);
  }
  if (value instanceof Promise) return credentialSource(await value, path);
  const [key, ...rest] = path;
  if (key === undefined) return "plain";
  if (typeof value !== "object" || Array.isArray(value)) return undefined;
  return credentialSource((value as Record<string, unknown>)[key], rest);
}

/** The record of CREDENTIAL_SOURCES_KEY for `args`: the source of each credential given, by camelCase path. */
async function credentialSources(args: Record<string, unknown>, paths: readonly string[]): Promise<Record<string, CredentialSource>> {
  const found = await Promise.all(paths.map(async (path) => [path, await credentialSource(args, path.split("."))] as const));
  return Object.fromEntries(found.filter((entry): entry is readonly [string, CredentialSource] => entry[1] !== undefined));
}

/**
 * Says, once per resource, which credentials the program wrote in plain text: they are kept secret in state, but
 * they sit in the program's source (or plain config), which is what a reviewer should hear about.
 */
function warnPlain(className: string, name: unknown, sources: Record<string, CredentialSource>, resource: pulumi.Resource | undefined): void {
  const plain = Object.entries(sources).filter(([, source]) => source === "plain").map(([path]) => path);
  if (plain.length === 0) return;
  const which = typeof name === "string" ? `${className} "${name}"` : className;
  const members = plain.length === 1 ? `${plain[0]} is` : `${plain.slice(0, -1).join(", ")} and ${plain.at(-1)} are`;
  const kept = plain.length === 1 ? "it is" : "they are";
  pulumi.log.warn(`${which}: ${members} written in plain text in the program (or plain config); ${kept} kept secret in state, but pass a secret instead (config.requireSecret or pulumi.secret) to keep ${plain.length === 1 ? "it" : "them"} out of the source`, resource);
}

/** The resource being made, once its constructor has registered it: a warning about its inputs is shown under it. */
export interface Owner {
  resource?: pulumi.Resource;
}

/**
 * What every resource class of a family registers: the inputs the program gave (each registered member costs the
 * Pulumi runtime an output, four promises and their stacks, so the answer's other members are not pre-declared),
 * credentials secret with where each came from (CREDENTIAL_SOURCES_KEY), and every other documented output read on
 * demand (`definesOutputs`).
 */
export function registration<C extends Collection>(collection: C) {
  const found = Object.hasOwn(registrations, collection) ? registrations[collection] : undefined;
  if (!found) throw new Error(`no resource family ${JSON.stringify(collection)}`);
  const { className, outputs, secretOutputs, renamedOutputs } = found;
  const secretPaths = secretOutputs.map((path) => path.split("."));
  // Only whole outputs can be named for the engine to keep secret; members inside follow their inputs.
  const wholeSecrets = secretOutputs.filter((path) => !path.includes("."));
  return {
    className,
    outputNames: outputs,
    secretOutputs,
    renamedOutputs,
    props(declared: Args<C> | undefined, owner: Owner = {}): Record<string, unknown> {
      // A JavaScript program may leave the arguments out: check then names what is required.
      const args = (declared ?? {}) as Args<C>;
      const props: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(args as Record<string, unknown>)) {
        // Credentials stay secret in state even when the program passed them in plain text.
        props[key] = secretPaths.filter(([top]) => top === key).reduce((v, [, ...rest]) => withSecret(v, rest), value);
      }
      const given = secretOutputs.filter((path) => (args as Record<string, unknown>)[path.split(".")[0]!] !== undefined);
      if (given.length > 0) {
        const sources = credentialSources(args as Record<string, unknown>, given);
        props[CREDENTIAL_SOURCES_KEY] = sources.then((found) => {
          warnPlain(className, (args as { name?: unknown }).name, found, owner.resource);
          return found;
        });
      }
      return props;
    },
    additionalSecretOutputs: (opts: pulumi.CustomResourceOptions) => [...new Set([...(opts.additionalSecretOutputs ?? []), ...wholeSecrets])],
  };
}

/**
 * Marks the promises inside an output built from a resource's URN as handled: when the resource fails, they reject
 * with its failure, which the runtime reports itself; left unhandled until the stack's outputs are read, each made
 * Node print a PromiseRejectionHandledWarning beside that one error. Whoever reads the output still sees it fail.
 */
function settled(output: pulumi.Output<unknown>): void {
  const inner = output as unknown as { isKnown?: Promise<unknown>; isSecret?: Promise<unknown> };
  for (const promise of [inner.isKnown, inner.isSecret, valuePromise(output)]) promise?.catch(() => undefined);
}

/** The runtime's own promise of an output's value (not part of its typed API); undefined where it has none. */
export function valuePromise(output: pulumi.Output<unknown>): Promise<unknown> | undefined {
  const promise = (output as unknown as { promise?: () => Promise<unknown> }).promise;
  return typeof promise === "function" ? promise.call(output) : undefined;
}

/** A resource of this program read back from the engine by its URN (`pulumi:pulumi:getResource`), resolving one member. */
class Recorded extends pulumi.CustomResource {
  constructor(urn: string, member: string) {
    super("audience:internal:Recorded", "recorded", { [member]: undefined }, { urn });
  }
}

/**
 * Makes each of `names` an output of the class's resources: a member the program registered (an input it gave) is
 * the runtime's own output, set on the resource as usual; any other is built when first read, from the resource's
 * state as the engine recorded it once registered (secret, unknown in preview and dependent on the resource as a
 * registered output would be). `read` gives the program its view of an output (the same by default).
 */
export function definesOutputs(prototype: object, names: readonly string[], read: (name: string, output: pulumi.Output<unknown>) => pulumi.Output<unknown> = (_name, output) => output): void {
  const built = new WeakMap<object, Map<string, pulumi.Output<unknown>>>();
  for (const name of names) {
    Object.defineProperty(prototype, name, {
      configurable: true,
      get(this: pulumi.CustomResource) {
        let outputs = built.get(this);
        if (!outputs) built.set(this, (outputs = new Map()));
        let output = outputs.get(name);
        if (!output) {
          output = read(name, this.urn.apply((urn) => (new Recorded(urn, name) as unknown as Record<string, pulumi.Output<unknown>>)[name]!));
          settled(output);
          outputs.set(name, output);
        }
        return output;
      },
      // The runtime sets the outputs of registered members on the resource itself.
      set(this: object, value: unknown) {
        const output = pulumi.Output.isInstance(value) ? read(name, value) : value;
        Object.defineProperty(this, name, { value: output, writable: true, enumerable: true, configurable: true });
      },
    });
  }
}

/**
 * Why a dynamic resource refuses Pulumi's `import` option, and what to write instead. Pulumi reads an imported
 * resource with its id alone, so the dynamic-provider host has no `__provider` to run and fails with its own stack
 * trace; said before registering, once, in the program's words.
 */
function cannotImport(className: string, name: string, id: pulumi.Input<string>): ProgramError {
  const given = typeof id === "string" ? id : "<the id>";
  return new ProgramError(`${className} "${name}": the import option does not work on pulumi-audience's dynamic resources; `
    + `write adoptId: ${JSON.stringify(given)} among its arguments instead (it takes over the existing resource on the next up), `
    + "or use the native face (pulumi-audience/native), whose resources take the import option and pulumi import");
}

export function resourceClass<C extends Collection>(collection: C): ResourceClass<C> {
  const { className, outputNames, props, additionalSecretOutputs } = registration(collection);

  // What `pulumi.dynamic.Resource` registers, with the shim given as text instead of serialized at run time: the
  // family's, which names it (no `__kind` member of its own).
  const type = dynamicType(className);
  const shim = providerModule(collection);
  class Resource extends pulumi.CustomResource {
    constructor(name: string, args: Args<C>, opts: pulumi.CustomResourceOptions = {}) {
      if (opts.import !== undefined) throw cannotImport(className, name, opts.import);
      const owner: Owner = {};
      // The host's diff names no path for the engine to match replaceOnChanges against: the lifecycle's diff does.
      const replacing = opts.replaceOnChanges?.length ? { [REPLACE_ON_CHANGES_KEY]: opts.replaceOnChanges } : {};
      super(type, name, { ...props(args, owner), ...replacing, [PROVIDER_KEY]: shim }, { ...opts, additionalSecretOutputs: additionalSecretOutputs(opts) });
      owner.resource = this;
    }

    static get(name: string, id: pulumi.Input<string>, state: Pick<ResourceControls, "account"> = {}, opts: pulumi.CustomResourceOptions = {}) {
      return new Resource(name, state as Args<C>, { ...opts, id });
    }
  }
  Object.defineProperty(Resource, "name", { value: className });
  definesOutputs(Resource.prototype, outputNames);
  return Resource as unknown as ResourceClass<C>;
}
