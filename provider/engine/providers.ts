// Which provider serves a resource: for `pulumi-nodejs:` types the dynamic providers (some in process, the others in
// the dynamic-provider host; see in-process-provider.ts), the plugin of the package the engine runs (the extension's
// `packageName`) for that package's types; one plugin per provider resource (`pulumi:providers:<package>`), the
// default one configured from stack config, an explicit one from its inputs.
import type { PluginHost, ProviderConfig } from "./plugin-host.ts";
import type { CheckResult, ResourceCalls } from "./resource-calls.ts";
import { revealed, type PropertyMap, type Value } from "../protocol/values.ts";
import { PROVIDER_TYPE as DYNAMIC_PROVIDER_TYPE, urnName, urnType } from "./urn.ts";

const PROVIDER_PREFIX = "pulumi:providers:";
/** The name Pulumi gives the provider it creates for resources that name none and no version. */
export const DEFAULT_PROVIDER_NAME = "default";

/** The engine's own member of a provider resource's inputs (its download URL): never given to the plugin, as in Pulumi. */
export const INTERNAL_KEY = "__internal";

/** A provider resource's inputs as its plugin takes them: without the engine's own member (FilterProviderConfig). */
export function pluginArgs(inputs: PropertyMap): PropertyMap {
  if (!(INTERNAL_KEY in inputs)) return inputs;
  const { [INTERNAL_KEY]: _internal, ...args } = inputs;
  return args;
}

/** The provider version a resource asks for (RegisterResource's `version` and `pluginDownloadURL`). */
export interface ProviderVersion {
  version?: string;
  pluginDownloadURL?: string;
}

/**
 * The name Pulumi gives the default provider of a package requested at `version` (from `pluginDownloadURL`), as
 * pkg/resource/deploy/providers ProviderRequest.DefaultName does: `default_0_1_0`, the version's pre-release and
 * build parts and the URL (as a QName) appended with `_`; `default` when no version is asked for.
 */
export function defaultProviderName({ version = "", pluginDownloadURL = "" }: ProviderVersion = {}): string {
  let name = DEFAULT_PROVIDER_NAME;
  const semver = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+([0-9A-Za-z.-]+))?$/.exec(version.trim());
  if (semver) {
    const [, major, minor, patch, pre, build] = semver;
    name += `_${Number(major)}_${Number(minor)}_${Number(patch)}`;
    for (const part of [...(pre?.split(".") ?? []), ...(build?.split(".") ?? [])]) name += `_${part}`;
  }
  const url = pluginDownloadURL.replace(/\/+$/, "");
  if (url !== "") name += `_${url.split("/").filter((s) => s !== "").map((s) => s.replace(/[^A-Za-z0-9_.-]/g, "_")).join("/")}`;
  return name;
}

/** The provider resource type of a package: `pulumi:providers:<package>`. */
export function packageProviderType(pluginPackage: string): string {
  return `${PROVIDER_PREFIX}${pluginPackage}`;
}

/**
 * The provider resource type serving a resource type (or function token), if the local engine runs it: dynamic
 * resources, and those of `pluginPackage`, whose plugin the engine runs.
 */
export function providerTypeOf(type: string, pluginPackage: string | undefined): string | undefined {
  if (type.startsWith("pulumi-nodejs:")) return DYNAMIC_PROVIDER_TYPE;
  if (pluginPackage !== undefined && type.startsWith(`${pluginPackage}:`)) return packageProviderType(pluginPackage);
  return undefined;
}

/** What the engine runs, for a message about a resource it does not. */
export function servedText(pluginPackage: string | undefined): string {
  return pluginPackage === undefined ? "dynamic (pulumi-nodejs) resources" : `dynamic (pulumi-nodejs) and ${pluginPackage} resources`;
}

export function isProviderType(type: string): boolean {
  return type.startsWith(PROVIDER_PREFIX);
}

/** The package of a provider resource type (`audience` of `pulumi:providers:audience`). */
export function providerPackage(providerType: string): string {
  return providerType.slice(PROVIDER_PREFIX.length);
}

/** A provider the engine registers itself for resources that name none (Pulumi: a name starting `default`). */
export function isDefaultProvider(r: { urn: string; type: string }): boolean {
  return isProviderType(r.type) && urnName(r.urn).startsWith(DEFAULT_PROVIDER_NAME);
}

/** The URN of a provider reference (`<urn>::<id>`). */
export function providerUrn(ref: string): string {
  return ref.slice(0, ref.lastIndexOf("::"));
}

/** The default provider's config as a provider resource's inputs: stack config `<package>:<key>` as `<key>`. */
function pluginInputs(pluginPackage: string, stackConfig: Record<string, unknown>): PropertyMap {
  const inputs: PropertyMap = {};
  for (const [key, value] of Object.entries(stackConfig)) if (key.startsWith(`${pluginPackage}:`)) inputs[key.slice(pluginPackage.length + 1)] = value as Value;
  return inputs;
}

/** The default provider's config as Configure takes it: `<package>:config:<key>` variables, objects as JSON. */
export function pluginVariables(pluginPackage: string, stackConfig: Record<string, unknown>): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const [key, value] of Object.entries(pluginInputs(pluginPackage, stackConfig))) {
    variables[`${pluginPackage}:config:${key}`] = typeof value === "string" ? value : JSON.stringify(revealed(value));
  }
  return variables;
}

export interface ProviderHostsOptions {
  /** The package whose plugin serves its resources (`<package>:...`); without one, only dynamic resources run. */
  pluginPackage: string | undefined;
  dynamic: () => Promise<ResourceCalls>;
  /** Starts a plugin process, not configured yet. */
  plugin: () => Promise<PluginHost>;
  /** The stack's config, which the default plugin takes its own (`<package>:<key>`) from. */
  stackConfig: Record<string, unknown>;
  /** The inputs of a provider resource, from this run's registrations or the state. */
  providerInputs: (urn: string) => PropertyMap | undefined;
}

/** Starts each provider process once, on first use, and stops them all at the end of the run. */
export class ProviderHosts {
  readonly #o: ProviderHostsOptions;
  /** Every plugin process started, configured or not. */
  readonly #started: Promise<PluginHost>[] = [];
  /** Configured plugins, by provider and config. */
  readonly #plugins = new Map<string, Promise<PluginHost>>();
  /** A plugin started to check config and not configured yet: the next provider to configure takes it. */
  #idle: Promise<PluginHost> | undefined;
  /** The plugin that checks provider config (CheckConfig and DiffConfig depend on no configuration). */
  #checker: Promise<PluginHost> | undefined;

  constructor(options: ProviderHostsOptions) {
    this.#o = options;
  }

  #start(): Promise<PluginHost> {
    const started = this.#o.plugin();
    this.#started.push(started);
    return started;
  }

  /** The process serving `type` through the provider `ref` (the default provider when absent). */
  host(type: string, ref?: string): Promise<ResourceCalls> {
    const providerType = providerTypeOf(type, this.#o.pluginPackage);
    if (providerType === DYNAMIC_PROVIDER_TYPE) return this.#o.dynamic();
    if (providerType !== undefined) return this.plugin(ref);
    return Promise.reject(new Error(`${type}: the local engine runs ${servedText(this.#o.pluginPackage)} only; deploy programs using other providers with the Pulumi CLI`));
  }

  /** The provider type of the package's plugin, if the engine runs one. */
  get #pluginType(): string | undefined {
    return this.#o.pluginPackage === undefined ? undefined : packageProviderType(this.#o.pluginPackage);
  }

  /** The plugin that checks the config of provider resources of `providerType`; none when no plugin serves it. */
  configChecker(providerType: string): Promise<PluginHost> | undefined {
    if (providerType === undefined || providerType !== this.#pluginType) return undefined;
    return (this.#checker ??= this.#idle = this.#start());
  }

  /** Checks the default provider's config (from the stack's) with its plugin's CheckConfig; none to check for other types. */
  async checkDefault(providerType: string, urn: string): Promise<CheckResult | undefined> {
    const checker = this.configChecker(providerType);
    return checker && (await checker).checkConfig(urn, {}, pluginInputs(this.#o.pluginPackage!, this.#o.stackConfig));
  }

  /** The plugin of the provider `ref`; the default one when `ref` is absent or names a default provider. */
  plugin(ref?: string): Promise<PluginHost> {
    const pluginPackage = this.#o.pluginPackage;
    if (pluginPackage === undefined) return Promise.reject(new Error("the local engine runs no provider plugin"));
    const urn = ref ? providerUrn(ref) : "";
    if (urn !== "" && urnType(urn) !== this.#pluginType) return Promise.reject(new Error(`provider ${urn} does not serve ${pluginPackage} resources`));
    const explicit = urn !== "" && !isDefaultProvider({ urn, type: urnType(urn) });
    let config: ProviderConfig = { variables: pluginVariables(pluginPackage, this.#o.stackConfig) };
    if (explicit) {
      const inputs = this.#o.providerInputs(urn);
      if (!inputs) return Promise.reject(new Error(`provider ${urn} is neither declared by the program nor in the state`));
      config = { args: pluginArgs(inputs) };
    }
    // Keyed by config too: a provider whose inputs changed in this run gets a plugin configured anew.
    const key = `${explicit ? urn : DEFAULT_PROVIDER_NAME}|${JSON.stringify(config)}`;
    let plugin = this.#plugins.get(key);
    if (!plugin) {
      const started = this.#idle ?? this.#start();
      this.#idle = undefined;
      this.#checker ??= started;
      plugin = started.then(async (host) => {
        await host.configure(config);
        return host;
      });
      this.#plugins.set(key, plugin);
    }
    return plugin;
  }

  /**
   * Starts the package's plugin now when any of `resources` is served by it and none is started yet: the run will
   * need it, and it then loads while the program does instead of after the program's first resource.
   */
  startEarlyFor(resources: readonly { type: string }[]): void {
    const type = this.#pluginType;
    if (type !== undefined && resources.some((r) => providerTypeOf(r.type, this.#o.pluginPackage) === type)) this.configChecker(type)?.catch(() => undefined);
  }

  /** Calls a function of the plugin behind `ref`; a dynamic provider has none. */
  async invoke(token: string, args: PropertyMap, ref?: string): Promise<PropertyMap> {
    const providerType = providerTypeOf(token, this.#o.pluginPackage);
    if (providerType === undefined || providerType !== this.#pluginType) throw new Error(`function ${token} is not served by the local engine: a dynamic provider has no functions, so lookups run in the program`);
    return (await this.plugin(ref)).invoke(token, args);
  }

  /** Asks every plugin to stop what it is doing: its waits in flight end, keeping what they created. */
  async cancel(): Promise<void> {
    await Promise.all(this.#started.map((p) => p.then((h) => h.cancel()).catch(() => undefined)));
  }

  /** Stops every plugin started; the dynamic host is stopped by its owner. */
  async close(): Promise<void> {
    await Promise.all(this.#started.map((p) => p.then((h) => h.close(), () => undefined)));
  }
}
