// `pulumi-audience/provider`: the dynamic provider every resource's `__provider` shim loads at call time.
import { AsyncLocalStorage } from "node:async_hooks";
import type * as pulumi from "@pulumi/pulumi";
import { whenEngineGone } from "../../protocol/engine-watch.ts";
import { familyOf } from "../families/index.ts";
import { withFamily } from "../resources/shim.ts";
import { KIND_KEY } from "./controls.ts";
import { hostedLifecycle, retrying } from "./hosted.ts";
import { readSettings } from "./settings.ts";
import { shownFailure } from "../../protocol/check-failure.ts";
import { toldOnce } from "./told-once.ts";

export { createLifecycle } from "./lifecycle.ts";
export type { Environment, StepLimits } from "./environment.ts";
export { compare, type PathChange } from "./diff.ts";
export { BUILD_PATH } from "./build.ts";
export { readBackOutputKeys, readInputs, readsBack } from "./read.ts";
export { CONTROL_KEYS, CREATE_STARTED_KEY, KIND_KEY, PROVIDER_KEY, controlsSchema, type Controls } from "./controls.ts";
export { AmbiguousCreateError, OUTCOME_UNKNOWN } from "./ambiguous.ts";
export { credentialsFor, readSettings, unknownAccount, type Credentials, type Settings } from "./settings.ts";
export { UNKNOWN } from "./shape.ts";
export type { Service } from "./service.ts";
export { accountServices, clientService } from "./service-client.ts";
export { accountChecks } from "./config-check.ts";
export { hostedLifecycle, type HostedLifecycle, type HostedOptions } from "./hosted.ts";

/** Whether the host can reach an engine's Log service (PULUMI_NODEJS_ENGINE), where what the provider says belongs. */
const hasEngine = () => Boolean(process.env["PULUMI_NODEJS_ENGINE"]);

/**
 * The resource each call is about, as a message names it: the host logs without one, on the stack's line, where a
 * request alone (`GET /cohorts`) does not say which of many resources waits.
 */
const step = new AsyncLocalStorage<() => string | undefined>();
function about(props: Record<string, unknown>, id?: string): string | undefined {
  try {
    const { className } = familyOf(withFamily(props)[KIND_KEY]).family;
    return typeof props["name"] === "string" ? `${className} "${props["name"]}"` : `${className}${id ? ` ${id}` : ""}`;
  } catch {
    return undefined;
  }
}
function within<A extends unknown[], R>(label: (...args: A) => string | undefined, call: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args) => {
    active++;
    try {
      // Named only when a message needs it: most calls tell nothing.
      return await step.run(() => label(...args), () => call(...args));
    } finally {
      active--;
      endOnceAnswered(true);
    }
  };
}

/**
 * Shorter waits (most of a faulty network's) are told only under --debug: on the stack's line each would be kept in
 * the run's summary, where a throttled fleet's hundreds bury its warnings. A longer wait is progress worth showing.
 */
const SHOWN_WAIT_MS = 5_000;

const hosted = hostedLifecycle({
  settings: readSettings(() => undefined),
  checkAccounts: true,
  // A warning goes to the engine's Log service when the host has one; else it is a line of output, for a person.
  report: (message) => {
    if (hasEngine()) void import("@pulumi/pulumi").then(({ log }) => log.warn(message)).catch(() => console.warn(`warning: ${message}`));
    else console.warn(`warning: ${message}`);
  },
  // An ephemeral log reaches the engine when the host has one; else it is a line of output.
  progress: (message) => import("@pulumi/pulumi").then(({ log }) => log.info(message, undefined, undefined, true)).catch(() => undefined),
  retry: (notice) => {
    const which = step.getStore()?.();
    const text = `${which ? `${which}: ` : ""}${retrying(notice)}`;
    const shown = !notice.answered && notice.waitMs >= SHOWN_WAIT_MS;
    void import("@pulumi/pulumi").then(({ log }) => (shown ? log.info(text, undefined, undefined, true) : log.debug(text))).catch(() => undefined);
  },
});
const { lifecycle } = hosted;

/**
 * Aborted when the run is interrupted: Pulumi's dynamic-provider host answers the engine's Cancel with nothing, so a
 * wait for a build would run to its waitTimeoutSeconds. A Ctrl-C at a terminal reaches the host with the CLI (one
 * process group), and so does the engine's end; either stops the waits, as the plugin's Cancel does.
 */
const interrupted = new AbortController();
const limits = { signal: interrupted.signal };
/**
 * Calls under way: an interrupted host ends at once when none is (Pulumi ends its plugins so after every command),
 * else once they have answered, given a moment for the answer to be sent.
 */
let active = 0;
function endOnceAnswered(answering = false): void {
  if (!interrupted.signal.aborted || active > 0) return;
  const end = () => {
    process.removeAllListeners("SIGINT");
    process.kill(process.pid, "SIGINT");
  };
  if (answering) setTimeout(end, 250).unref();
  else end();
}

// Pulumi's dynamic-provider host serves on for minutes after its engine is killed outright; once the engine that
// started it (its argument) is gone, what is in flight gets a few seconds and the host ends, as the plugin does.
if (/[\\/]cmd[\\/]dynamic-provider[\\/]index\.js$/.test(process.argv[1] ?? "") && process.argv[2]) {
  whenEngineGone(process.argv[2], () => {
    interrupted.abort();
    setTimeout(() => process.exit(0), 5_000).unref();
  });
  // A step in flight ends as cancelled and answers the engine before the host ends, instead of dying mid-step.
  process.once("SIGINT", () => {
    interrupted.abort();
    endOnceAnswered();
  });
}

/** The provider the host calls: `configure` receives the whole stack config (secrets already unwrapped). */
export const provider: pulumi.dynamic.ResourceProvider & { configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> } = {
  ...lifecycle,
  create: within((inputs) => about(inputs), (inputs) => lifecycle.create(inputs, limits)),
  update: within((id, _olds, news) => about(news, id), (id, olds, news) => lifecycle.update(id, olds, news, limits)),
  check: toldOnce(within((_olds, news) => about(news), async (olds, news) => {
    const result = await lifecycle.check(olds, news);
    return { ...result, failures: result.failures.map((failure) => shownFailure(failure, news)) };
  })),
  diff: toldOnce(within((id, _olds, news) => about(news, id), lifecycle.diff)),
  read: toldOnce(within((id, props) => about(props, id), lifecycle.read)),
  delete: toldOnce(within((id, props) => about(props, id), lifecycle.delete)),
  async configure(req) {
    hosted.configure(readSettings((key) => {
      try {
        return req.config.get(key);
      } catch {
        return undefined; // a host that never sent config: the environment decides
      }
    }));
  },
};
