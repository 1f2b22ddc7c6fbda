// The baseline of the plugin rows (bench/provider.ts): a resource provider plugin served by grpc-js with Pulumi's own
// stubs, whose create, read, update and delete each make the one undici call they need and nothing else (check
// answers the inputs as given). Started as a plugin is started: it prints its port, then serves until it is stopped.
//   node bench/bare-plugin.ts [engine address]   with AUDIENCE_BASE_URL and AUDIENCE_API_KEY set
import { emptyProto, providerProto } from "../provider/protocol/proto.ts";
import { call, plain, servePlugin, struct, unary } from "./bare-plugin-parts.ts";

const nameOf = (properties: Parameters<typeof plain>[0]) => String(plain(properties)["name"]);

servePlugin({
  configure: unary(async () => new providerProto.ConfigureResponse().setAcceptsecrets(true).setAcceptresources(true)),
  check: unary(async (req: InstanceType<typeof providerProto.CheckRequest>) => new providerProto.CheckResponse().setInputs(req.getNews())),
  create: unary(async (req: InstanceType<typeof providerProto.CreateRequest>) => {
    const doc = (await call("POST", "/cohorts", { name: nameOf(req.getProperties()) }))!;
    return new providerProto.CreateResponse().setId(String(doc["id"])).setProperties(struct(doc));
  }),
  read: unary(async (req: InstanceType<typeof providerProto.ReadRequest>) => {
    const doc = (await call("GET", `/cohorts/${req.getId()}`))!;
    return new providerProto.ReadResponse().setId(req.getId()).setProperties(struct(doc)).setInputs(req.getInputs());
  }),
  update: unary(async (req: InstanceType<typeof providerProto.UpdateRequest>) => {
    const doc = (await call("PATCH", `/cohorts/${req.getId()}`, { name: nameOf(req.getNews()) }))!;
    return new providerProto.UpdateResponse().setProperties(struct(doc));
  }),
  delete: unary(async (req: InstanceType<typeof providerProto.DeleteRequest>) => {
    await call("DELETE", `/cohorts/${req.getId()}`);
    return new emptyProto.Empty();
  }),
});
