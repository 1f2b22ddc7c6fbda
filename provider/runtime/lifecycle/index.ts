// `pulumi-audience/provider`: the dynamic provider every resource's `__provider` shim loads at call time.
import type * as pulumi from "@pulumi/pulumi";
import { setTimeout as sleep } from "node:timers/promises";
import { createLifecycle } from "./lifecycle.ts";
import { accountChecks } from "./config-check.ts";
import { accountServices } from "./service-client.ts";
import { readSettings, type Settings } from "./settings.ts";

export { compare, createLifecycle, readInputs, readsBack, type Environment, type PathChange, type StepLimits } from "./lifecycle.ts";
export { CONTROL_KEYS, CREATE_STARTED_KEY, KIND_KEY, PROVIDER_KEY, controlsSchema, type Controls } from "./controls.ts";
export { AmbiguousCreateError, OUTCOME_UNKNOWN } from "./ambiguous.ts";
export { credentialsFor, readSettings, unknownAccount, type Credentials, type Settings } from "./settings.ts";
export { UNKNOWN } from "./shape.ts";
export type { Service } from "./service.ts";
export { accountServices, clientService } from "./service-client.ts";
export { accountChecks } from "./config-check.ts";

let settings: Settings = readSettings(() => undefined);
const services = accountServices(() => settings);
const checks = accountChecks(() => settings);

const lifecycle = createLifecycle({
  settings: () => settings,
  service: services.service,
  sleep: (ms, signal) => sleep(ms, undefined, { signal }),
  // The host's output is what an engine shows of the provider; the prefix gives the line its severity.
  report: (message) => console.warn(`warning: ${message}`),
  // An ephemeral log reaches the engine when the host has one (PULUMI_NODEJS_ENGINE); else it is a line of output.
  progress: (message) => import("@pulumi/pulumi").then(({ log }) => log.info(message, undefined, undefined, true)).catch(() => undefined),
  accountProblem: checks.problem,
});

/** The provider the host calls: `configure` receives the whole stack config (secrets already unwrapped). */
export const provider: pulumi.dynamic.ResourceProvider & { configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> } = {
  ...lifecycle,
  async configure(req) {
    settings = readSettings((key) => {
      try {
        return req.config.get(key);
      } catch {
        return undefined; // a host that never sent config: the environment decides
      }
    });
    services.clear();
    checks.clear();
  },
};
