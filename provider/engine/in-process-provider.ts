// A dynamic provider served in the engine's process (the extension's `inProcess`): the provider the dynamic-provider
// host would load through a resource's `__provider`, called directly with the host's conventions (plain values in,
// the `__provider` kept on what it answers, a kept resource's error as ResourceInitFailedError), without a second
// process or a gRPC round trip per call. Other dynamic resources still go to the host.
import { ProviderError, ResourceInitFailedError } from "./provider-host.ts";
import type { CheckResult, DiffResult, ResourceCalls, WriteOptions } from "./resource-calls.ts";
import { PROVIDER_KEY, revealedJson, type PropertyMap } from "../protocol/values.ts";

type Props = Record<string, unknown>;

/** The limits a create or update takes: the step's customTimeouts and the run's stop. */
export interface CallLimits {
  timeoutSeconds?: number;
  signal?: AbortSignal;
}

/** A dynamic provider's calls as the dynamic-provider host makes them, a create and an update taking their limits. */
export interface DynamicCalls {
  check(olds: Props, news: Props): Promise<{ inputs?: Props; failures?: { property: string; reason: string; code?: string }[] }>;
  diff(id: string, olds: Props, news: Props): Promise<{ changes?: boolean; replaces?: string[]; deleteBeforeReplace?: boolean; forcing?: string[] }>;
  create(inputs: Props, limits: CallLimits): Promise<{ id: string; outs?: Props }>;
  /** `recordedInputs` on a refresh, as a plugin's Read gets them (Pulumi's dynamic-provider host passes none). */
  read(id: string, props: Props, recordedInputs?: Props): Promise<{ id?: string; props?: Props; inputs?: Props }>;
  update(id: string, olds: Props, news: Props, limits: CallLimits): Promise<{ outs?: Props }>;
  delete(id: string, props: Props): Promise<void>;
}

export interface InProcessProviderOptions {
  /** The provider, or its load: a run overlaps loading it with the program's own boot. */
  provider: DynamicCalls | Promise<DynamicCalls>;
  /** The run's stop: it ends a create's or update's wait, as a plugin's Cancel does. */
  signal?: AbortSignal;
}

/** What crosses the host's wire: plain values, as JSON carries them (a copy the lifecycle may change). */
function plain(m: PropertyMap | Props | undefined): Props {
  return m === undefined ? {} : (revealedJson(m) as Props);
}

/** The answer with the caller's `__provider` on it, as the host's `resultIncludingProvider` does. */
function withProvider(result: Props | undefined, props: Props): PropertyMap {
  return plain({ ...result, [PROVIDER_KEY]: props[PROVIDER_KEY] }) as PropertyMap;
}

/** An error as a host's gRPC answer carries it, with the failure's code when the provider gives one. */
function asHostError(e: unknown): Error {
  const error = e as { message?: string; id?: string; properties?: Props; reasons?: string[]; code?: unknown };
  const message = error?.message ?? String(e);
  const code = typeof error?.code === "string" ? error.code : undefined;
  if (error?.id) return new ResourceInitFailedError(message, error.id, plain(error.properties) as PropertyMap, error.reasons ?? [], code);
  return new ProviderError(message, { code });
}

async function hostCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    throw asHostError(e);
  }
}

export class InProcessProvider implements ResourceCalls {
  readonly #loaded: Promise<DynamicCalls>;
  readonly #signal: AbortSignal | undefined;

  constructor(options: InProcessProviderOptions) {
    this.#signal = options.signal;
    this.#loaded = Promise.resolve(options.provider);
    // Awaited by every call, which reports a failure; unawaited until then, it is not an unhandled rejection.
    this.#loaded.catch(() => undefined);
  }

  /** Calls the provider once loaded; a load that failed fails here, unwrapped. */
  async #call<T>(fn: (provider: DynamicCalls) => Promise<T>): Promise<T> {
    const provider = await this.#loaded;
    return hostCall(() => fn(provider));
  }

  check(_urn: string, olds: PropertyMap, news: PropertyMap): Promise<CheckResult> {
    return this.#call(async (provider) => {
      const given = plain(news);
      const { inputs, failures } = await provider.check(plain(olds), given);
      return { inputs: withProvider(inputs ?? given, given), failures: (failures ?? []).map((f) => ({ property: f.property, reason: f.reason, ...(f.code ? { code: f.code } : {}) })) };
    });
  }

  /**
   * As the host answers: no detailed diff and no changed keys (the engine compares the inputs itself), top-level
   * replace keys; besides, the paths that force a replacement when the provider tells them.
   */
  diff(id: string, _urn: string, oldOutputs: PropertyMap, news: PropertyMap): Promise<DiffResult> {
    return this.#call(async (provider) => {
      const result = await provider.diff(id, plain(oldOutputs), plain(news));
      const changes = result.changes === true ? "some" : result.changes === false ? "none" : "unknown";
      const replaces = result.replaces ?? [];
      return { changes, replaces, deleteBeforeReplace: result.deleteBeforeReplace ?? false, diffs: [], ...(replaces.length > 0 && result.forcing ? { forcing: result.forcing } : {}) };
    });
  }

  /** The step's limits: its customTimeouts and the run's stop. */
  #limits({ timeout }: WriteOptions): CallLimits {
    return { ...(timeout ? { timeoutSeconds: timeout } : {}), ...(this.#signal ? { signal: this.#signal } : {}) };
  }

  create(_urn: string, inputs: PropertyMap, options: WriteOptions = {}): Promise<{ id: string; outputs: PropertyMap }> {
    return this.#call(async (provider) => {
      const props = plain(inputs);
      const result = await provider.create(props, this.#limits(options));
      return { id: result.id, outputs: withProvider(result.outs, props) };
    });
  }

  update(id: string, _urn: string, oldOutputs: PropertyMap, news: PropertyMap, _oldInputs?: PropertyMap, options: WriteOptions = {}): Promise<PropertyMap> {
    return this.#call(async (provider) => {
      const props = plain(news);
      const result = await provider.update(id, plain(oldOutputs), props, this.#limits(options));
      return withProvider(result.outs, props);
    });
  }

  read(id: string, _urn: string, outputs?: PropertyMap, inputs?: PropertyMap): Promise<{ id: string; outputs: PropertyMap; inputs?: PropertyMap }> {
    return this.#call(async (provider) => {
      const recorded = plain(outputs);
      const refresh = Object.keys(recorded).length > 0;
      const props = refresh || !inputs ? recorded : plain(inputs);
      const result = await (refresh && inputs ? provider.read(id, props, plain(inputs)) : provider.read(id, props));
      const found = { id: result.id ?? "", outputs: withProvider(result.props, props) };
      return result.inputs ? { ...found, inputs: withProvider(result.inputs, props) } : found;
    });
  }

  delete(id: string, _urn: string, outputs: PropertyMap): Promise<void> {
    return this.#call((provider) => provider.delete(id, plain(outputs)));
  }
}

/**
 * The dynamic provider of every `pulumi-nodejs:` resource: those `served` in process by `own`, the others through
 * the dynamic-provider host, started on first use.
 */
export class DynamicProviders implements ResourceCalls {
  readonly #served: (props: PropertyMap) => boolean;
  readonly #own: () => ResourceCalls;
  readonly #host: () => Promise<ResourceCalls>;

  constructor(served: (props: PropertyMap) => boolean, own: () => ResourceCalls, host: () => Promise<ResourceCalls>) {
    this.#served = served;
    this.#own = own;
    this.#host = host;
  }

  async #by(props: PropertyMap): Promise<ResourceCalls> {
    return this.#served(props) ? this.#own() : this.#host();
  }

  async check(urn: string, olds: PropertyMap, news: PropertyMap): Promise<CheckResult> {
    return (await this.#by(news)).check(urn, olds, news);
  }

  async diff(id: string, urn: string, oldOutputs: PropertyMap, news: PropertyMap, oldInputs: PropertyMap | undefined, ignoreChanges: string[]): Promise<DiffResult> {
    return (await this.#by(news)).diff(id, urn, oldOutputs, news, oldInputs, ignoreChanges);
  }

  async create(urn: string, inputs: PropertyMap, options?: Parameters<ResourceCalls["create"]>[2]): Promise<{ id: string; outputs: PropertyMap }> {
    return (await this.#by(inputs)).create(urn, inputs, options);
  }

  async update(id: string, urn: string, oldOutputs: PropertyMap, news: PropertyMap, oldInputs: PropertyMap | undefined, options?: Parameters<ResourceCalls["update"]>[5]): Promise<PropertyMap> {
    return (await this.#by(news)).update(id, urn, oldOutputs, news, oldInputs, options);
  }

  async read(id: string, urn: string, outputs?: PropertyMap, inputs?: PropertyMap): Promise<{ id: string; outputs: PropertyMap; inputs?: PropertyMap }> {
    return (await this.#by(outputs && Object.keys(outputs).length > 0 ? outputs : (inputs ?? {}))).read(id, urn, outputs, inputs);
  }

  async delete(id: string, urn: string, outputs: PropertyMap, oldInputs?: PropertyMap): Promise<void> {
    return (await this.#by(outputs)).delete(id, urn, outputs, oldInputs);
  }
}
