// Protobuf bytes read and written without google-protobuf's messages (provider/protocol/wire.ts) must be what
// google-protobuf reads and writes, and the monitor built on them must answer a program as before.
import type { ServiceError } from "@grpc/grpc-js";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { startMonitor, type Registration } from "../../provider/engine/monitor.ts";
import { grpc, resourceProto, resourceRpc, structProto } from "../../provider/protocol/proto.ts";
import { decodeStruct, encodeMessage, encodeStruct, MessageReader, readSourcePosition, readStackTrace } from "../../provider/protocol/wire.ts";

const sourceProto = createRequire(import.meta.url)("@pulumi/pulumi/proto/source_pb.js") as typeof import("@pulumi/pulumi/proto/source_pb.js");

type JsStruct = Record<string, import("google-protobuf/google/protobuf/struct_pb.js").JavaScriptValue>;

const google = {
  encode: (v: JsStruct) => Buffer.from(structProto.Struct.fromJavaScript(v).serializeBinary()),
  decode: (b: Uint8Array) => structProto.Struct.deserializeBinary(b).toJavaScript(),
};

const SAMPLES: Record<string, JsStruct> = {
  empty: {},
  scalars: { s: "text", n: 42, f: -0.125, big: 2 ** 60, zero: 0, t: true, no: false, nothing: null },
  unicode: { "clé": "ünïcødé ✓ 𝄞", "": "" },
  nested: { a: { b: { c: [1, "two", null, { d: [] }, [[]]] } }, e: [] },
  // Lengths past one varint byte, and a value longer than 16 KB.
  long: { ["k".repeat(300)]: "v".repeat(20_000), list: Array.from({ length: 200 }, (_, i) => ({ i, name: `item ${i}` })) },
  secret: { password: { "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", value: "hunter2" } },
  // Keys in an order other than sorted: google-protobuf writes a map's keys sorted.
  unsorted: { zeta: 1, alpha: 2, mid: { z: 1, a: 2 } },
};

describe("Struct bytes", () => {
  for (const [name, value] of Object.entries(SAMPLES)) {
    it(`${name}: written as google-protobuf writes them, and read back as it reads them`, () => {
      const ours = encodeStruct(value);
      expect(ours.equals(google.encode(value))).toBe(true);
      expect(decodeStruct(google.encode(value))).toStrictEqual(google.decode(google.encode(value)));
      expect(decodeStruct(ours)).toStrictEqual(value);
    });
  }

  it("a member named __proto__ is written and read as a member, not as the object's prototype (google-protobuf loses it)", () => {
    const value = JSON.parse('{"__proto__": {"polluted": true}, "b": 1}') as JsStruct;
    const read = decodeStruct(encodeStruct(value));
    expect(Object.getPrototypeOf(read)).toBe(Object.prototype);
    expect(Object.keys(read)).toStrictEqual(["__proto__", "b"]);
    expect(Object.getOwnPropertyDescriptor(read, "__proto__")?.value).toStrictEqual({ polluted: true });
  });

  it("values a Struct cannot hold fail as google-protobuf fails", () => {
    for (const bad of [undefined, () => 1, 1n, Symbol("s")]) {
      expect(() => google.encode({ bad } as unknown as JsStruct)).toThrow("Unexpected struct type");
      expect(() => encodeStruct({ bad })).toThrow("Unexpected struct type");
      expect(() => encodeStruct({ nested: [{ bad }] })).toThrow("Unexpected struct type");
    }
  });

  it("cut or malformed bytes fail rather than read as something else", () => {
    // Cut between two members, the bytes are a Struct of the first ones; cut anywhere else, they fail.
    const value = { ...SAMPLES.nested!, ...SAMPLES.scalars! };
    const bytes = encodeStruct(value);
    let read = 0;
    for (let cut = 1; cut < bytes.length; cut++) {
      let got: Record<string, unknown> | undefined;
      try {
        got = decodeStruct(bytes.subarray(0, cut));
      } catch {
        continue;
      }
      read++;
      const sorted = Object.keys(value).sort();
      expect(Object.keys(got), `cut at ${cut}`).toStrictEqual(sorted.slice(0, Object.keys(got).length));
      for (const key of Object.keys(got)) expect(got[key]).toStrictEqual(value[key as keyof typeof value]);
    }
    expect(read).toBe(Object.keys(value).length - 1);
    // A map entry whose value has no kind: google-protobuf refuses it too.
    const kindless = Buffer.from([0x0a, 0x05, 0x0a, 0x01, 0x78, 0x12, 0x00]);
    expect(() => google.decode(kindless)).toThrow();
    expect(() => decodeStruct(kindless)).toThrow("Unexpected struct type");
  });
});

function registerRequest() {
  const position = (uri: string, line: number, column: number) => new sourceProto.SourcePosition().setUri(uri).setLine(line).setColumn(column);
  const frames = [position("file:///lib/node_modules/x/index.js", 10, 3), position("file:///project/index.ts", 7, -1)]
    .map((pc) => new sourceProto.StackFrame().setPc(pc));
  const req = new resourceProto.RegisterResourceRequest()
    .setType("test:index:Thing").setName("thing").setCustom(true).setParent("urn:pulumi:dev::p::pulumi:pulumi:Stack::p-dev")
    .setObject(structProto.Struct.fromJavaScript(SAMPLES.nested as JsStruct))
    .setDependenciesList(["urn:a", "urn:b"]).setProvider("urn:prov::id").setImportid("imp").setVersion("1.2.3").setPlugindownloadurl("https://example.com")
    .setIgnorechangesList(["a", "b.c"]).setReplaceonchangesList(["d"]).setAdditionalsecretoutputsList(["e"]).setAliasurnsList(["urn:old"])
    .setProtect(false).setRetainondelete(true).setDeletebeforereplace(true).setDeletebeforereplacedefined(true)
    .setCustomtimeouts(new resourceProto.RegisterResourceRequest.CustomTimeouts().setCreate("5m").setDelete("1h"))
    // Fields the engine does not read: skipped.
    .setAcceptsecrets(true).setSupportsresultreporting(true).setSupportspartialvalues(true).setDeletedwith("urn:w")
    .setSourceposition(position("file:///lib/node_modules/x/thing.js", 3, 5))
    .setStacktrace(new sourceProto.StackTrace().setFramesList(frames));
  req.getPropertydependenciesMap().set("a", new resourceProto.RegisterResourceRequest.PropertyDependencies().setUrnsList(["urn:a", "urn:b"]));
  req.getPropertydependenciesMap().set("none", new resourceProto.RegisterResourceRequest.PropertyDependencies());
  return req;
}

describe("a message's fields one at a time", () => {
  it("positions, a negative one included (an int32 below zero takes ten bytes)", () => {
    const req = registerRequest();
    expect(readSourcePosition(req.getSourceposition()!.serializeBinary())).toStrictEqual({ uri: "file:///lib/node_modules/x/thing.js", line: 3, column: 5 });
    expect(readStackTrace(req.getStacktrace()!.serializeBinary())).toStrictEqual([
      { uri: "file:///lib/node_modules/x/index.js", line: 10, column: 3 },
      { uri: "file:///project/index.ts", line: 7, column: -1 },
    ]);
  });

  it("a field of another wire type than its reader expects fails, naming the field", () => {
    const r = new MessageReader(new resourceProto.RegisterResourceRequest().setCustom(true).serializeBinary());
    expect(r.next()).toBe(true);
    expect(() => r.string()).toThrow("protobuf field 4 has wire type 0, not 2");
  });

  it("strings, bools and a Struct as google-protobuf writes the message", () => {
    const outputs = SAMPLES.scalars!;
    for (const unknown of [false, true]) {
      const res = new resourceProto.RegisterResourceResponse().setUrn("urn:x").setId("").setObject(structProto.Struct.fromJavaScript(outputs)).setUnknown(unknown);
      const ours = encodeMessage([{ field: 1, string: "urn:x" }, { field: 2, string: "" }, { field: 3, struct: outputs }, { field: 8, bool: unknown }]);
      expect(ours.equals(Buffer.from(res.serializeBinary()))).toBe(true);
    }
  });
});

it("the monitor reads a registration and answers it as google-protobuf's own messages did", async () => {
  const seen: Registration[] = [];
  const outputs = { ...SAMPLES.scalars!, nested: SAMPLES.nested! };
  const monitor = await startMonitor({
    register: async (reg) => (seen.push(reg), { urn: `urn:pulumi:dev::p::${reg.type}::${reg.name}`, id: "id-1", outputs, unknown: true }),
    registerOutputs: async () => undefined,
    read: async () => { throw new Error("not served"); },
    invoke: async () => { throw new Error("not served"); },
    log: () => undefined,
  }, "/project");
  const client = new resourceRpc.ResourceMonitorClient(monitor.address, grpc.credentials.createInsecure());
  try {
    const res = await new Promise<InstanceType<typeof resourceProto.RegisterResourceResponse>>((resolve, reject) =>
      client.registerResource(registerRequest(), (err: ServiceError | null, r: InstanceType<typeof resourceProto.RegisterResourceResponse>) => (err ? reject(err) : resolve(r))));
    expect(res.getUrn()).toBe("urn:pulumi:dev::p::test:index:Thing::thing");
    expect(res.getId()).toBe("id-1");
    expect(res.getUnknown()).toBe(true);
    expect(res.getObject()!.toJavaScript()).toStrictEqual(outputs);
    // Every field the engine reads, as google-protobuf's getters gave them.
    expect(seen).toStrictEqual([{
      type: "test:index:Thing", name: "thing", parent: "urn:pulumi:dev::p::pulumi:pulumi:Stack::p-dev", custom: true, inputs: SAMPLES.nested,
      dependencies: ["urn:a", "urn:b"], propertyDependencies: { a: ["urn:a", "urn:b"], none: [] }, provider: "urn:prov::id",
      ignoreChanges: ["a", "b.c"], replaceOnChanges: ["d"], additionalSecretOutputs: ["e"], aliasUrns: ["urn:old"], importId: "imp",
      version: "1.2.3", pluginDownloadURL: "https://example.com", customTimeouts: { create: "5m", update: "", delete: "1h" },
      // Given false, which is not the same as not given.
      protect: false, retainOnDelete: true, deleteBeforeReplace: true,
      // The first frame in the project: the SDK's own position and the library frame are outside it.
      sourcePosition: "project:///index.ts#7",
    }]);
  } finally {
    client.close();
    await monitor.close();
  }
});
