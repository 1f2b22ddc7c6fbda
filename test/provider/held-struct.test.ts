// The ResourceProvider service with the Structs of each resource's calls held as plain values
// (provider/protocol/held-struct.ts): what one side writes must read, with google-protobuf as with Pulumi's Go engine,
// as the same message, and what it reads must read as google-protobuf read it.
import { describe, expect, it } from "vitest";
import { providerProto, structProto } from "../../provider/protocol/proto.ts";
import { heldStruct, heldStructService } from "../../provider/protocol/held-struct.ts";
import { received, sent } from "../../provider/plugin/wire.ts";

type JsStruct = Parameters<typeof structProto.Struct.fromJavaScript>[0];
const struct = (v: JsStruct) => structProto.Struct.fromJavaScript(v);
type Method = { requestSerialize(m: unknown): Buffer; requestDeserialize(b: Buffer): unknown; responseSerialize(m: unknown): Buffer; responseDeserialize(b: Buffer): unknown };
const method = (name: string) => (heldStructService() as unknown as Record<string, Method>)[name]!;

const INPUTS = { name: "Cohort 1", minCount: 5, options: { nested: [1, "two", null, { three: true }] }, password: { "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", value: "pw" } };

describe("requests", () => {
  it("a diff's Structs read as google-protobuf reads them, its other fields untouched; a Struct not sent stays absent", () => {
    const req = new providerProto.DiffRequest().setId("id-1").setUrn("urn:x").setOlds(struct(INPUTS)).setNews(struct({ ...INPUTS, minCount: 6 })).setIgnorechangesList(["a"]);
    const read = method("diff").requestDeserialize(Buffer.from(req.serializeBinary())) as InstanceType<typeof providerProto.DiffRequest>;
    expect(read.getId()).toBe("id-1");
    expect(read.getUrn()).toBe("urn:x");
    expect(read.getIgnorechangesList()).toStrictEqual(["a"]);
    expect(received(read.getOlds())).toStrictEqual(received(req.getOlds()));
    expect(received(read.getNews())).toStrictEqual({ ...INPUTS, minCount: 6 });
    expect(read.getOldInputs()).toBeUndefined();
  });

  it("an empty Struct is sent and read as an empty one, not as none", () => {
    const req = new providerProto.CreateRequest().setUrn("urn:x").setProperties(struct({})).setTimeout(30).setPreview(true);
    const read = method("create").requestDeserialize(Buffer.from(req.serializeBinary())) as InstanceType<typeof providerProto.CreateRequest>;
    expect(read.getProperties()?.toJavaScript()).toStrictEqual({});
    expect([read.getTimeout(), read.getPreview()]).toStrictEqual([30, true]);
  });
});

describe("answers", () => {
  it("a create's, a read's and an update's Structs are written after their other fields and read back as the same message", () => {
    const outputs = sent({ ...INPUTS, id: undefined }, [], ["password"]);
    const cases: [string, { serializeBinary(): Uint8Array }, (b: Uint8Array) => { toObject(): unknown }, { serializeBinary(): Uint8Array }][] = [
      ["create", new providerProto.CreateResponse().setId("id-1").setProperties(outputs), (b) => providerProto.CreateResponse.deserializeBinary(b),
        new providerProto.CreateResponse().setId("id-1").setProperties(struct(received(outputs) as JsStruct))],
      ["read", new providerProto.ReadResponse().setId("id-1").setProperties(outputs).setInputs(sent({ name: "n" }, [], [])), (b) => providerProto.ReadResponse.deserializeBinary(b),
        new providerProto.ReadResponse().setId("id-1").setProperties(struct(received(outputs) as JsStruct)).setInputs(struct({ name: "n" }))],
      ["update", new providerProto.UpdateResponse().setProperties(outputs), (b) => providerProto.UpdateResponse.deserializeBinary(b),
        new providerProto.UpdateResponse().setProperties(struct(received(outputs) as JsStruct))],
    ];
    for (const [name, answer, parse, asGoogleWritesIt] of cases) {
      const bytes = method(name).responseSerialize(answer);
      expect(parse(bytes).toObject(), name).toStrictEqual(parse(asGoogleWritesIt.serializeBinary()).toObject());
    }
  });

  it("a Struct google-protobuf writes itself (an answer the service does not name, an error's details) keeps its members", () => {
    const values = sent({ name: "n", list: [1, 2] }, [], []);
    const invoke = new providerProto.InvokeResponse().setReturn(values);
    expect(providerProto.InvokeResponse.deserializeBinary(invoke.serializeBinary()).getReturn()?.toJavaScript()).toStrictEqual({ name: "n", list: [1, 2] });
    const detail = new providerProto.ErrorResourceInitFailed().setId("id-1").setProperties(values);
    expect(providerProto.ErrorResourceInitFailed.deserializeBinary(detail.serializeBinary()).getProperties()?.toJavaScript()).toStrictEqual({ name: "n", list: [1, 2] });
  });
});

describe("the engine's side: requests written, answers read", () => {
  it("a check's held Structs are written as the plugin (and Pulumi's own providers) read them", () => {
    const req = new providerProto.CheckRequest().setUrn("urn:x").setOlds(heldStruct({})).setNews(heldStruct(INPUTS)).setRandomseed(Buffer.from([1, 2]));
    const read = providerProto.CheckRequest.deserializeBinary(method("check").requestSerialize(req));
    expect(read.getUrn()).toBe("urn:x");
    expect(read.getOlds()?.toJavaScript()).toStrictEqual({});
    expect(read.getNews()?.toJavaScript()).toStrictEqual(INPUTS);
    expect(Buffer.from(read.getRandomseed_asU8())).toStrictEqual(Buffer.from([1, 2]));
    expect(read.getOldOutputs()).toBeUndefined();
  });

  it("writing a request leaves it as it was given: its held Structs are still on it, and it writes the same bytes again", () => {
    const news = heldStruct(INPUTS);
    const req = new providerProto.CheckRequest().setUrn("urn:x").setNews(news);
    const first = method("check").requestSerialize(req);
    expect(req.getNews()).toBe(news);
    expect(method("check").requestSerialize(req)).toStrictEqual(first);
  });

  it("a create's answer is read with its Struct held, its other fields as google-protobuf reads them", () => {
    const answer = new providerProto.CreateResponse().setId("id-1").setProperties(struct(INPUTS));
    const read = method("create").responseDeserialize(Buffer.from(answer.serializeBinary())) as InstanceType<typeof providerProto.CreateResponse>;
    expect(read.getId()).toBe("id-1");
    expect(read.getProperties()?.toJavaScript()).toStrictEqual(INPUTS);
  });
});
