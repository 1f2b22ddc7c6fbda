// Property values between the engine and the plugin: protobuf Structs whose secrets arrive wrapped (the plugin
// accepts secrets) and resource references as objects. The lifecycle sees plain values; what was secret going in
// stays secret coming out, and credential members are always secret.
import type { Struct } from "google-protobuf/google/protobuf/struct_pb.js";
import { annotateSecrets, markSecret, revealed, type PropertyMap, type Value } from "../protocol/values.ts";
import { SIG_KEY, UNKNOWN } from "../protocol/markers.ts";
import { heldStruct } from "../protocol/held-struct.ts";
import { isObject, type Props } from "../runtime/lifecycle/shape.ts";

/** Marks an object as a reference to a resource (`{urn, id}`), sent when the engine passes resources. */
const RESOURCE_SIG = "5cf8f73096256a8f31e491e813e4eb8e";

/** A resource reference stands for its id (unknown until the resource exists), as the resource's inputs expect. */
function withoutReferences(value: Value): Value {
  if (Array.isArray(value)) return value.map(withoutReferences);
  if (!isObject(value)) return value;
  if (value[SIG_KEY] === RESOURCE_SIG) return typeof value.id === "string" && value.id !== "" ? value.id : UNKNOWN;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutReferences(v as Value)]));
}

/** A Struct as it came from the engine: secrets still wrapped, references replaced by ids. */
export function received(struct: Struct | undefined): PropertyMap {
  return withoutReferences((struct?.toJavaScript() ?? {}) as Value) as PropertyMap;
}

/** The plain values the lifecycle works on. */
export function plain(values: PropertyMap): Props {
  return revealed(values) as Props;
}

/**
 * Values to send back: a member whose source (inputs, old state) held a secret stays secret, and the members
 * named in `secret` (credentials) are secret whatever they came from; then named as `names` says (values and
 * sources have the same names until then, so that each member finds its source).
 */
export function sent(values: Props, sources: PropertyMap[], secret: readonly string[], names: (values: PropertyMap) => PropertyMap = (v) => v): Struct {
  let out = values as PropertyMap;
  for (const source of sources) out = annotateSecrets(out, source);
  out = names(markSecret(out, secret));
  return heldStruct(withoutUndefined(out) as Record<string, unknown>);
}

function withoutUndefined(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutUndefined);
  if (!isObject(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined).map(([k, v]) => [k, withoutUndefined(v)]));
}
