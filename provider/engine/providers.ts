// Which provider serves a resource: for `pulumi-nodejs:` types the dynamic providers (this package's in process,
// others in the dynamic-provider host; see in-process-provider.ts), the `audience` plugin for `audience:` types; one
// plugin per provider resource (`pulumi:providers:audience`), the default one configured from stack config, an
// explicit one from its inputs.
import type { PluginHost, ProviderConfig } from "./plugin-host.ts";
import type { ResourceCalls } from "./provider-host.ts";
import { PROVIDER_TYPE as PLUGIN_PROVIDER_TYPE, PACKAGE } from "../plugin/tokens.ts";
import { revealed, type PropertyMap, type Value } from "../plugin/values.ts";
import { PROVIDER_TYPE as DYNAMIC_PROVIDER_TYPE, urnName, urnType } from "./urn.ts";

const PROVIDER_PREFIX = "pulumi:providers:";
/** The name Pulumi gives the provider it creates for resources that name none. */
export const DEFAULT_PROVIDER_NAME = "default";

/** The provider resource type serving a resource type, if the local engine runs it. */
export function providerTypeOf(type: string): string | undefined {
  if (type.startsWith("pulumi-nodejs:")) return DYNAMIC_PROVIDER_TYPE;
  if (type.startsWith(`${PACKAGE}:`)) return PLUGIN_PROVIDER_TYPE;
  return undefined;
}

export function isProviderType(type: string): boolean {
  return type.startsWith(PROVIDER_PREFIX);
}

/** A provider the engine registers itself for resources that name none. */
export function isDefaultProvider(r: { urn: string; type: string }): boolean {
  return isProviderType(r.type) && urnName(r.urn) === DEFAULT_PROVIDER_NAME;
}

/** The URN of a provider reference (`<urn>::<id>`). */
export function providerUrn(ref: string): string {
  return ref.slice(0, ref.lastIndexOf("::"));
}

/** The default provider's config: stack config `audience:<key>` as `audience:config:<key>` variables. */
export function pluginVariables(stackConfig: Record<string, unknown>): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const [key, value] of Object.entries(stackConfig)) {
    if (!key.startsWith(`${PACKAGE}:`)) continue;
    variables[`${PACKAGE}:config:${key.slice(PACKAGE.length + 1)}`] = typeof value === "string" ? value : JSON.stringify(revealed(value as Value));
  }
  return variables;
}

export interface ProviderHostsOptions {
  dynamic: () => Promise<ResourceCalls>;
  /** Starts a plugin and configures it. */
  plugin: (config: ProviderConfig) => Promise<PluginHost>;
  /** The default plugin's config. */
  defaultConfig: ProviderConfig;
  /** The inputs of a provider resource, from this run's registrations or the state. */
  providerInputs: (urn: string) => PropertyMap | undefined;
}

/** Starts each provider process once, on first use, and stops them all at the end of the run. */
export class ProviderHosts {
  readonly #o: ProviderHostsOptions;
  readonly #plugins = new Map<string, Promise<PluginHost>>();

  constructor(options: ProviderHostsOptions) {
    this.#o = options;
  }

  /** The process serving `type` through the provider `ref` (the default provider when absent). */
  host(type: string, ref?: string): Promise<ResourceCalls> {
    const providerType = providerTypeOf(type);
    if (providerType === DYNAMIC_PROVIDER_TYPE) return this.#o.dynamic();
    if (providerType === PLUGIN_PROVIDER_TYPE) return this.plugin(ref);
    return Promise.reject(new Error(`${type}: the local engine runs dynamic (pulumi-nodejs) and ${PACKAGE} resources only; deploy programs using other providers with the Pulumi CLI`));
  }

  /** The plugin of the provider `ref`; the default one when `ref` is absent or names a default provider. */
  plugin(ref?: string): Promise<PluginHost> {
    const urn = ref ? providerUrn(ref) : "";
    if (urn !== "" && urnType(urn) !== PLUGIN_PROVIDER_TYPE) return Promise.reject(new Error(`provider ${urn} does not serve ${PACKAGE} resources`));
    const explicit = urn !== "" && urnName(urn) !== DEFAULT_PROVIDER_NAME;
    let config = this.#o.defaultConfig;
    if (explicit) {
      const inputs = this.#o.providerInputs(urn);
      if (!inputs) return Promise.reject(new Error(`provider ${urn} is neither declared by the program nor in the state`));
      config = { args: inputs };
    }
    // Keyed by config too: a provider whose inputs changed in this run gets a plugin configured anew.
    const key = `${explicit ? urn : DEFAULT_PROVIDER_NAME}|${JSON.stringify(config)}`;
    let plugin = this.#plugins.get(key);
    if (!plugin) {
      plugin = this.#o.plugin(config);
      this.#plugins.set(key, plugin);
    }
    return plugin;
  }

  /** Calls a function of the plugin behind `ref`; a dynamic provider has none. */
  async invoke(token: string, args: PropertyMap, ref?: string): Promise<PropertyMap> {
    if (providerTypeOf(token) !== PLUGIN_PROVIDER_TYPE) throw new Error(`function ${token} is not served by the local engine: a dynamic provider has no functions, so lookups run in the program`);
    return (await this.plugin(ref)).invoke(token, args);
  }

  /** Stops every plugin started; the dynamic host is stopped by its owner. */
  async close(): Promise<void> {
    await Promise.all([...this.#plugins.values()].map((p) => p.then((h) => h.close(), () => undefined)));
  }
}
