// `pulumi-audience/provider`: the dynamic provider every resource's `__provider` shim loads at call time.
import type * as pulumi from "@pulumi/pulumi";
import { setTimeout as sleep } from "node:timers/promises";
import { createLifecycle } from "./lifecycle.ts";
import type { Service } from "./service.ts";
import { clientService } from "./service-client.ts";
import { credentialsFor, readSettings, type Settings } from "./settings.ts";

export { compare, createLifecycle, type Environment } from "./lifecycle.ts";
export { CONTROL_KEYS, KIND_KEY, PROVIDER_KEY, controlsSchema, type Controls } from "./controls.ts";
export { credentialsFor, readSettings, unknownAccount, type Credentials, type Settings } from "./settings.ts";
export { UNKNOWN } from "./shape.ts";
export type { Service } from "./service.ts";
export { clientService } from "./service-client.ts";

let settings: Settings = readSettings(() => undefined);
const services = new Map<string, Service>();

const lifecycle = createLifecycle({
  settings: () => settings,
  service(account) {
    const key = account ?? "";
    let service = services.get(key);
    if (!service) {
      service = clientService(credentialsFor(settings, account));
      services.set(key, service);
    }
    return service;
  },
  sleep: (ms) => sleep(ms),
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
  },
};
