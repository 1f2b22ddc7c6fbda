// This package's resource classes (`pulumi-audience`) for programs of the in-process runtime: a registration carries
// what the class registers (type token, the family's `__provider` shim, credentials secret, the family's secret
// outputs), so the engine serves it in process as it serves a real program's.
import type { Collection } from "pulumi-audience/sdk/contract";
import { PROVIDER_KEY } from "../../provider/runtime/lifecycle/controls.ts";
import { dynamicType } from "../../provider/runtime/markers.ts";
import { registration } from "../../provider/runtime/resources/resource.ts";
import { providerModule } from "../../provider/runtime/resources/shim.ts";
import { isSecret, makeSecret, UNKNOWN, type Value } from "../../provider/protocol/values.ts";
import type { MonitorClient, Registered, ResourceOptions } from "./in-process-runtime.ts";

/** `value` with the member at `path` made secret, as the resource classes wrap a credential. */
function withSecret(value: Value | undefined, path: readonly string[]): Value | undefined {
  if (value === undefined) return value;
  const [key, ...rest] = path;
  if (key === undefined) return isSecret(value) ? value : makeSecret(value);
  if (isSecret(value)) return value;
  if (typeof value !== "object" || value === null || Array.isArray(value) || !(key in value)) return value;
  return { ...value, [key]: withSecret(value[key], rest) as Value };
}

/** Registers a resource of `collection` as `new audience.<Class>(name, args, opts)` does. */
export function audienceResource(monitor: MonitorClient, collection: Collection, name: string, args: Record<string, Value | undefined>, opts: ResourceOptions = {}): Promise<Registered> {
  const { className, secretOutputs, additionalSecretOutputs } = registration(collection);
  const inputs: Record<string, Value | undefined> = {};
  for (const [key, value] of Object.entries(args)) {
    inputs[key] = secretOutputs.map((p) => p.split(".")).filter(([top]) => top === key).reduce((v, [, ...rest]) => withSecret(v, rest), value);
  }
  const type = dynamicType(className);
  const given = opts.additionalSecretOutputs ? { additionalSecretOutputs: opts.additionalSecretOutputs } : {};
  return monitor.registerResource(type, name, true, { ...inputs, [PROVIDER_KEY]: providerModule(collection) }, { ...opts, additionalSecretOutputs: additionalSecretOutputs(given) });
}

/** A registered resource's id as the program sees it: unknown until the resource exists (a create in a preview). */
export function idOf(r: Registered): Value {
  return r.id === "" ? UNKNOWN : r.id;
}
