// Structs that hold their values as JavaScript, for the ResourceProvider service's calls on every resource's path:
// the engine's requests to a provider and the plugin's answers. A side that writes them does so straight from the
// values, and a side that reads them decodes the bytes straight into values (wire.ts), without google-protobuf's
// Struct messages (a Value message per member, built and walked again). Other fields stay google-protobuf's.
import type { Struct } from "google-protobuf/google/protobuf/struct_pb.js";
import { providerRpc, structProto } from "./proto.ts";
import { decodeStruct, encodeMessage, takeFields, type MessageField } from "./wire.ts";

type JsStruct = Parameters<typeof structProto.Struct.fromJavaScript>[0];

/**
 * A Struct holding `values`: `toJavaScript()` answers them, and the service `heldStructService` gives writes them
 * without google-protobuf's messages. Wherever google-protobuf writes it itself (a message that service does not
 * name, an error's details), it gets its members then.
 */
export function heldStruct(values: Record<string, unknown>): Struct {
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
 * setters spell it).
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
type Serialize = (message: Message) => Buffer;
type Deserialize = (bytes: Buffer) => Message;
type Method = { requestSerialize: Serialize; requestDeserialize: Deserialize; responseSerialize: Serialize; responseDeserialize: Deserialize };

/** Reads a message, its `fields` Structs decoded into held ones. */
function reading(deserialize: Deserialize, fields: readonly Accessor[]): Deserialize {
  const numbers = fields.map((a) => a.field);
  return (bytes) => {
    const { taken, rest } = takeFields(bytes, numbers);
    const message = deserialize(rest as Buffer);
    fields.forEach((a, i) => {
      const struct = taken[i];
      if (struct) (message[`set${a.name}`] as (s: Struct) => void).call(message, heldStruct(decodeStruct(struct)));
    });
    return message;
  };
}

/**
 * Writes a message, its held `fields` Structs after its other fields (protobuf reads fields in any order). They are
 * taken off the message while google-protobuf writes the rest, and put back: the message is as it was given.
 */
function writing(serialize: Serialize, fields: readonly Accessor[]): Serialize {
  return (message) => {
    const structs: MessageField[] = [];
    const taken: [Accessor, Struct][] = [];
    for (const a of fields) {
      const struct = (message[`get${a.name}`] as () => Struct | undefined).call(message);
      const held = heldValues(struct);
      if (held === undefined) continue;
      structs.push({ field: a.field, struct: held });
      taken.push([a, struct!]);
      (message[`clear${a.name}`] as () => void).call(message);
    }
    if (taken.length === 0) return serialize(message);
    try {
      return Buffer.concat([serialize(message), encodeMessage(structs)]);
    } finally {
      for (const [a, struct] of taken) (message[`set${a.name}`] as (s: Struct) => void).call(message, struct);
    }
  };
}

/**
 * Pulumi's ResourceProvider service with the Structs of each resource's calls held: for the plugin that serves it
 * and for the engine's client of a provider alike.
 */
export function heldStructService(): typeof providerRpc.ResourceProviderService {
  const service = providerRpc.ResourceProviderService as unknown as Record<string, Method>;
  const methods: Record<string, Method> = { ...service };
  for (const [name, { request, response }] of Object.entries(STRUCT_FIELDS)) {
    const method = service[name]!;
    methods[name] = {
      requestSerialize: writing(method.requestSerialize, request),
      requestDeserialize: reading(method.requestDeserialize, request),
      responseSerialize: writing(method.responseSerialize, response),
      responseDeserialize: reading(method.responseDeserialize, response),
      ...Object.fromEntries(Object.entries(method).filter(([key]) => !/^(request|response)(Serialize|Deserialize)$/.test(key))),
    } as Method;
  }
  return methods as unknown as typeof providerRpc.ResourceProviderService;
}
