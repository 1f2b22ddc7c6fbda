// Property values between the engine and the plugin: protobuf Structs whose secrets arrive wrapped (the plugin
// accepts secrets) and resource references as objects. The lifecycle sees plain values; what was secret going in
// stays secret coming out, and credential members are always secret.
import type { Struct } from "google-protobuf/google/protobuf/struct_pb.js";
import { annotateSecrets, markSecret, revealed, type PropertyMap, type Value } from "../protocol/values.ts";
import { SIG_KEY, UNKNOWN } from "../protocol/markers.ts";
import { providerRpc, structProto } from "../protocol/proto.ts";
import { decodeStruct, encodeMessage, takeFields, type MessageField } from "../protocol/wire.ts";
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
export function received(struct: Pick<Struct, "toJavaScript"> | undefined): PropertyMap {
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

type JsStruct = Parameters<typeof structProto.Struct.fromJavaScript>[0];

/**
 * A Struct that holds its values as JavaScript: read by `received`, and written by the service's own serializer
 * (`structService`) without google-protobuf's messages. Wherever google-protobuf writes it itself (an answer
 * `STRUCT_FIELDS` does not name, an error's details), it gets its members then.
 */
function heldStruct(values: Record<string, unknown>): Struct {
  const struct = new structProto.Struct() as Struct & { held: Record<string, unknown> };
  struct.held = values;
  struct.toJavaScript = () => values as JsStruct;
  let built: Struct | undefined;
  struct.getFieldsMap = () => (built ??= structProto.Struct.fromJavaScript(values as JsStruct)).getFieldsMap();
  return struct;
}

/** The values a held Struct keeps, if it is one. */
const heldValues = (struct: unknown): Record<string, unknown> | undefined => (struct as { held?: Record<string, unknown> } | undefined)?.held;

type Accessor = { field: number; name: string };

/**
 * The Struct fields of the calls every resource makes (provider.proto's numbers; `name` as the generated getters and
 * setters spell it), read and written as plain values by `structService`.
 */
const STRUCT_FIELDS: Record<string, { request: Accessor[]; response: Accessor[] }> = {
  check: { request: [{ field: 2, name: "Olds" }, { field: 3, name: "News" }, { field: 9, name: "OldOutputs" }], response: [{ field: 1, name: "Inputs" }] },
  diff: { request: [{ field: 3, name: "Olds" }, { field: 4, name: "News" }, { field: 6, name: "OldInputs" }], response: [] },
  create: { request: [{ field: 2, name: "Properties" }], response: [{ field: 2, name: "Properties" }] },
  read: { request: [{ field: 3, name: "Properties" }, { field: 4, name: "Inputs" }], response: [{ field: 2, name: "Properties" }, { field: 3, name: "Inputs" }] },
  update: { request: [{ field: 3, name: "Olds" }, { field: 4, name: "News" }, { field: 8, name: "OldInputs" }], response: [{ field: 1, name: "Properties" }] },
  delete: { request: [{ field: 3, name: "Properties" }, { field: 5, name: "OldInputs" }], response: [] },
};

type Message = { serializeBinary(): Uint8Array } & Record<string, unknown>;
type Method = { requestDeserialize(bytes: Buffer): Message; responseSerialize(message: Message): Buffer };

/**
 * Pulumi's ResourceProvider service with the Structs of each resource's calls read and written straight between
 * bytes and plain values (protocol/wire.ts): a request's Structs become held ones, an answer's held Structs are
 * written after its other fields (protobuf reads fields in any order). google-protobuf's Struct messages, a Value
 * message per member, were a tenth of the plugin's work per resource.
 */
export function structService(): typeof providerRpc.ResourceProviderService {
  const service = providerRpc.ResourceProviderService as unknown as Record<string, Method>;
  const methods: Record<string, Method> = { ...service };
  for (const [name, { request, response }] of Object.entries(STRUCT_FIELDS)) {
    const method = service[name]!;
    methods[name] = {
      ...method,
      requestDeserialize: (bytes) => {
        const { taken, rest } = takeFields(bytes, request.map((a) => a.field));
        const message = method.requestDeserialize(rest as Buffer);
        request.forEach((a, i) => {
          const struct = taken[i];
          if (struct) (message[`set${a.name}`] as (s: Struct) => void).call(message, heldStruct(decodeStruct(struct)));
        });
        return message;
      },
      responseSerialize: (message) => {
        const structs: MessageField[] = [];
        for (const a of response) {
          const held = heldValues((message[`get${a.name}`] as () => Struct | undefined).call(message));
          if (held === undefined) continue;
          structs.push({ field: a.field, struct: held });
          (message[`clear${a.name}`] as () => void).call(message);
        }
        const rest = method.responseSerialize(message);
        return structs.length === 0 ? rest : Buffer.concat([rest, encodeMessage(structs)]);
      },
    };
  }
  return methods as unknown as typeof providerRpc.ResourceProviderService;
}

function withoutUndefined(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutUndefined);
  if (!isObject(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined).map(([k, v]) => [k, withoutUndefined(v)]));
}
