// The baseline of the plugin rows (bench/provider.ts): a resource provider plugin served by grpc-js with Pulumi's own
// stubs, whose create, read, update and delete each make the one undici call they need and nothing else (check
// answers the inputs as given). Started as a plugin is started: it prints its port, then serves until it is stopped.
//   node bench/bare-plugin.ts [engine address]   with AUDIENCE_BASE_URL and AUDIENCE_API_KEY set
import type { sendUnaryData, ServerUnaryCall } from "@grpc/grpc-js";
import { Pool } from "undici";
import { emptyProto, grpc, providerProto, providerRpc, structProto } from "../provider/protocol/proto.ts";

type Doc = Record<string, unknown>;

const base = new URL(process.env["AUDIENCE_BASE_URL"]!);
const pool = new Pool(base.origin);
const headers = { authorization: `Bearer ${process.env["AUDIENCE_API_KEY"]}`, "content-type": "application/json" };

async function call(method: "GET" | "POST" | "PATCH" | "DELETE", path: string, body?: Doc): Promise<Doc> {
  const res = await pool.request({ method, path: `${base.pathname}${path}`, headers, body: body === undefined ? null : JSON.stringify(body) });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${text}`);
  return text ? (JSON.parse(text) as Doc) : {};
}

const struct = (doc: Doc) => structProto.Struct.fromJavaScript(doc as Parameters<typeof structProto.Struct.fromJavaScript>[0]);
const nameOf = (properties: InstanceType<typeof structProto.Struct> | undefined) => String(properties?.toJavaScript()["name"]);

/** A gRPC handler from an async function of the request. */
function unary<Req, Res>(answer: (request: Req) => Promise<Res>) {
  return (rpc: ServerUnaryCall<Req, Res>, done: sendUnaryData<Res>) => {
    answer(rpc.request).then((res) => done(null, res), (error: Error) => done({ code: grpc.status.UNKNOWN, details: error.message }));
  };
}

const server = new grpc.Server();
server.addService(providerRpc.ResourceProviderService, {
  configure: unary(async () => new providerProto.ConfigureResponse().setAcceptsecrets(true).setAcceptresources(true)),
  check: unary(async (req: InstanceType<typeof providerProto.CheckRequest>) => new providerProto.CheckResponse().setInputs(req.getNews())),
  create: unary(async (req: InstanceType<typeof providerProto.CreateRequest>) => {
    const doc = await call("POST", "/cohorts", { name: nameOf(req.getProperties()) });
    return new providerProto.CreateResponse().setId(String(doc["id"])).setProperties(struct(doc));
  }),
  read: unary(async (req: InstanceType<typeof providerProto.ReadRequest>) => {
    const doc = await call("GET", `/cohorts/${req.getId()}`);
    return new providerProto.ReadResponse().setId(req.getId()).setProperties(struct(doc)).setInputs(req.getInputs());
  }),
  update: unary(async (req: InstanceType<typeof providerProto.UpdateRequest>) => {
    const doc = await call("PATCH", `/cohorts/${req.getId()}`, { name: nameOf(req.getNews()) });
    return new providerProto.UpdateResponse().setProperties(struct(doc));
  }),
  delete: unary(async (req: InstanceType<typeof providerProto.DeleteRequest>) => {
    await call("DELETE", `/cohorts/${req.getId()}`);
    return new emptyProto.Empty();
  }),
});
server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, port) => {
  if (error) throw error;
  console.log(port);
});
