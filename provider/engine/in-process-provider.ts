// This package's own dynamic resources, served in the engine's process: the lifecycle the dynamic-provider host
// would load through their `__provider` shim, called directly with the host's conventions (plain values in, the
// `__provider` kept on what it answers, a kept resource's error as ResourceInitFailedError), without a second
// process or a gRPC round trip per call. The lifecycle is the engine's own copy (the package that runs the engine),
// where the host would load the copy installed next to the program. Other dynamic resources still go to the host.
import { setTimeout as sleep } from "node:timers/promises";
import { createLifecycle } from "../runtime/lifecycle/lifecycle.ts";
import { accountChecks } from "../runtime/lifecycle/config-check.ts";
import { accountServices } from "../runtime/lifecycle/service-client.ts";
import { readSettings } from "../runtime/lifecycle/settings.ts";
import { PROVIDER_KEY } from "../runtime/markers.ts";
import { isPackageShim } from "../runtime/resources/shim.ts";
import { ProviderError, ResourceInitFailedError, type CheckResult, type DiffResult, type ResourceCalls, type WriteOptions } from "./provider-host.ts";
import { revealedMap, type PropertyMap } from "../plugin/values.ts";

type Props = Record<string, unknown>;

export interface InProcessProviderOptions {
  /** The provider config the host's `configure` would get (stack config, full keys). */
  config: Record<string, unknown>;
  /** The environment the host would run in (AUDIENCE_BASE_URL, ...). */
  env: NodeJS.ProcessEnv;
  /** A warning for the user (the host prints it as a `warning: ` line). */
  report: (message: string) => void;
  /** A passing status, such as a build's (the host sends it as an ephemeral log). */
  progress: (message: string) => void;
  /** The run's stop: it ends a create's or update's wait for a build, as a plugin's Cancel does. */
  signal?: AbortSignal;
}

/** Whether a resource's properties name this package's shim (of this version or an earlier one) as their provider. */
export function servedInProcess(props: PropertyMap): boolean {
  return isPackageShim(props[PROVIDER_KEY]);
}

/** What crosses the host's wire: plain values, as JSON carries them (a copy the lifecycle may change). */
function plain(m: PropertyMap | Props | undefined): Props {
  return m === undefined ? {} : (JSON.parse(JSON.stringify(revealedMap(m as PropertyMap))) as Props);
}

/** The answer with the caller's `__provider` on it, as the host's `resultIncludingProvider` does. */
function withProvider(result: Props | undefined, props: Props): PropertyMap {
  return plain({ ...result, [PROVIDER_KEY]: props[PROVIDER_KEY] }) as PropertyMap;
}

/** An error as the host's gRPC answer would carry it. */
function asHostError(e: unknown): Error {
  const error = e as { message?: string; id?: string; properties?: Props; reasons?: string[] };
  const message = error?.message ?? String(e);
  if (error?.id) return new ResourceInitFailedError(message, error.id, plain(error.properties) as PropertyMap, error.reasons ?? []);
  return new ProviderError(message);
}

async function hostCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    throw asHostError(e);
  }
}

export class InProcessProvider implements ResourceCalls {
  readonly #lifecycle: ReturnType<typeof createLifecycle>;
  readonly #signal: AbortSignal | undefined;

  constructor(options: InProcessProviderOptions) {
    this.#signal = options.signal;
    const settings = readSettings((key) => options.config[key], options.env);
    const services = accountServices(() => settings);
    this.#lifecycle = createLifecycle({
      settings: () => settings,
      service: services.service,
      sleep: (ms, signal) => sleep(ms, undefined, { signal }),
      report: options.report,
      progress: options.progress,
      accountProblem: accountChecks(() => settings).problem,
    });
  }

  check(_urn: string, olds: PropertyMap, news: PropertyMap): Promise<CheckResult> {
    return hostCall(async () => {
      const given = plain(news);
      const { inputs, failures } = await this.#lifecycle.check(plain(olds), given);
      return { inputs: withProvider(inputs ?? given, given), failures: (failures ?? []).map((f) => ({ property: f.property, reason: f.reason })) };
    });
  }

  /** The host answers no detailed diff and no changed keys: the engine compares the inputs itself. */
  diff(id: string, _urn: string, oldOutputs: PropertyMap, news: PropertyMap): Promise<DiffResult> {
    return hostCall(async () => {
      const result = await this.#lifecycle.diff(id, plain(oldOutputs), plain(news));
      const changes = result.changes === true ? "some" : result.changes === false ? "none" : "unknown";
      return { changes, replaces: result.replaces ?? [], deleteBeforeReplace: result.deleteBeforeReplace ?? false, diffs: [] };
    });
  }

  /** The step's limits: its customTimeouts and the run's stop. */
  #limits({ timeout }: WriteOptions) {
    return { ...(timeout ? { timeoutSeconds: timeout } : {}), ...(this.#signal ? { signal: this.#signal } : {}) };
  }

  create(_urn: string, inputs: PropertyMap, options: WriteOptions = {}): Promise<{ id: string; outputs: PropertyMap }> {
    return hostCall(async () => {
      const props = plain(inputs);
      const result = await this.#lifecycle.create(props, this.#limits(options));
      return { id: result.id, outputs: withProvider(result.outs, props) };
    });
  }

  update(id: string, _urn: string, oldOutputs: PropertyMap, news: PropertyMap, _oldInputs?: PropertyMap, options: WriteOptions = {}): Promise<PropertyMap> {
    return hostCall(async () => {
      const props = plain(news);
      const result = await this.#lifecycle.update(id, plain(oldOutputs), props, this.#limits(options));
      return withProvider(result.outs, props);
    });
  }

  read(id: string, _urn: string, outputs?: PropertyMap, inputs?: PropertyMap): Promise<{ id: string; outputs: PropertyMap; inputs?: PropertyMap }> {
    return hostCall(async () => {
      let props = plain(outputs);
      if (Object.keys(props).length === 0 && inputs) props = plain(inputs);
      const result = await this.#lifecycle.read(id, props);
      const found = { id: result.id ?? "", outputs: withProvider(result.props, props) };
      return result.inputs ? { ...found, inputs: withProvider(result.inputs, props) } : found;
    });
  }

  delete(id: string, _urn: string, outputs: PropertyMap): Promise<void> {
    return hostCall(() => this.#lifecycle.delete(id, plain(outputs)));
  }
}

/**
 * The dynamic provider of every `pulumi-nodejs:` resource: this package's resources in process, the others
 * through the dynamic-provider host, started on first use.
 */
export class DynamicProviders implements ResourceCalls {
  readonly #own: () => InProcessProvider;
  readonly #host: () => Promise<ResourceCalls>;

  constructor(own: () => InProcessProvider, host: () => Promise<ResourceCalls>) {
    this.#own = own;
    this.#host = host;
  }

  async #by(props: PropertyMap): Promise<ResourceCalls> {
    return servedInProcess(props) ? this.#own() : this.#host();
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
