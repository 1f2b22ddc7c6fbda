// The one wiring of a host's lifecycle: its settings, a client per account, the check of each account's key, and
// where its warnings, build statuses and retries go. The dynamic entry, the plugin and the engine's in-process host use it.
import { setTimeout as sleep } from "node:timers/promises";
import { isDeepStrictEqual } from "node:util";
import type { RetryNotice } from "pulumi-audience/sdk/client";
import { withFamily } from "../resources/shim.ts";
import { accountChecks } from "./config-check.ts";
import { failureCode } from "./failure.ts";
import type { Environment } from "./environment.ts";
import { createLifecycle } from "./lifecycle.ts";
import { accountServices } from "./service-client.ts";
import type { Settings } from "./settings.ts";

export interface HostedOptions extends Pick<Environment, "report" | "progress"> {
  /** The settings until `configure` gives others. */
  settings: Settings;
  /**
   * Whether check asks the service if each account's key works (once per account and configuration). A host that
   * checks its config itself (the plugin, in CheckConfig) leaves it off.
   */
  checkAccounts: boolean;
  /** Where a request's wait to be sent again, and its answer after, are told; as progress by default. */
  retry?(notice: RetryNotice): void;
}

export interface HostedLifecycle {
  lifecycle: ReturnType<typeof createLifecycle>;
  settings(): Settings;
  /**
   * New settings (Configure): the clients and account checks of the old ones are dropped. The same settings again
   * change nothing: the dynamic-provider host configures the provider once per family's shim, calls of the other
   * families under way.
   */
  configure(settings: Settings): void;
}

/** The lifecycle's calls, each property map given the family its shim names: check's inputs then record it. */
function kindFromShim(lifecycle: ReturnType<typeof createLifecycle>): ReturnType<typeof createLifecycle> {
  return {
    ...lifecycle,
    check: (olds, news) => lifecycle.check(withFamily(olds), withFamily(news)),
    diff: (id, olds, news) => lifecycle.diff(id, withFamily(olds), withFamily(news)),
    create: (inputs, limits) => lifecycle.create(withFamily(inputs), limits),
    read: (id, props, recordedInputs) => lifecycle.read(id, withFamily(props), recordedInputs && withFamily(recordedInputs)),
    update: (id, olds, news, limits) => lifecycle.update(id, withFamily(olds), withFamily(news), limits),
    delete: (id, props) => lifecycle.delete(id, withFamily(props)),
  };
}

/** The lifecycle whose every failure carries its code (failure.ts), which each host passes on to its engine. */
function coded<L extends Record<string, (...args: never[]) => Promise<unknown>>>(lifecycle: L): L {
  const out: Record<string, unknown> = {};
  for (const [name, call] of Object.entries(lifecycle)) {
    out[name] = async (...args: never[]) => {
      try {
        return await call(...args);
      } catch (error) {
        const code = failureCode(error);
        if (error instanceof Error && code !== undefined && (error as { code?: unknown }).code !== code) Object.assign(error, { code });
        throw error;
      }
    };
  }
  return out as L;
}

/** What a wait to send a request again shows (a Retry-After may hold it a minute), and then that it got through. */
export function retrying({ reason, waitMs, retry, maxRetries, answered }: RetryNotice): string {
  if (answered) return `${reason}: answered after ${retry} ${retry === 1 ? "retry" : "retries"}`;
  return `${reason}; sending it again in ${Math.max(1, Math.round(waitMs / 1000))}s (retry ${retry} of ${maxRetries})`;
}

export function hostedLifecycle(options: HostedOptions): HostedLifecycle {
  let settings = options.settings;
  const services = accountServices(() => settings, options.retry ?? (options.progress && ((notice) => void options.progress?.(retrying(notice)))));
  const checks = accountChecks(() => settings);
  const lifecycle = coded(kindFromShim(createLifecycle({
    settings: () => settings,
    service: services.service,
    sleep: (ms, signal) => sleep(ms, undefined, { signal }),
    ...(options.report ? { report: options.report } : {}),
    ...(options.progress ? { progress: options.progress } : {}),
    ...(options.checkAccounts ? { accountProblem: checks.problem } : {}),
  })));
  return {
    lifecycle,
    settings: () => settings,
    configure(next) {
      if (isDeepStrictEqual(next, settings)) return;
      settings = next;
      services.clear();
      checks.clear();
    },
  };
}
