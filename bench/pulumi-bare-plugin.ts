// The baseline of the real-CLI rows (bench/pulumi-cli.ts): the least a resource provider plugin can do for the
// cohorts a native Cohort declares, served by grpc-js with Pulumi's own stubs. Check, Diff and Read answer from what
// they are given; Create and Delete each make the one undici request they need. With --reads, Read makes the one
// GET a refresh exists for and answers with what it found (the least a refresh can do). The Pulumi CLI starts it as
// `pulumi-resource-audience` from PATH: it prints its port, then serves until it is stopped.
//   node bench/pulumi-bare-plugin.ts [--reads] [engine address]   with AUDIENCE_BASE_URL and AUDIENCE_API_KEY set
import { isDeepStrictEqual } from "node:util";
import { VERSION } from "../provider/plugin/manifest.ts";
import { emptyProto, pluginProto, providerProto } from "../provider/protocol/proto.ts";
import { call, plain, servePlugin, struct, unary } from "./bare-plugin-parts.ts";

const reads = process.argv.includes("--reads");

servePlugin({
  getPluginInfo: unary(async () => new pluginProto.PluginInfo().setVersion(VERSION)),
  configure: unary(async () => new providerProto.ConfigureResponse().setAcceptsecrets(true).setAcceptresources(true)),
  check: unary(async (req: InstanceType<typeof providerProto.CheckRequest>) => new providerProto.CheckResponse().setInputs(req.getNews())),
  diff: unary(async (req: InstanceType<typeof providerProto.DiffRequest>) => {
    const olds = plain(req.getOldInputs());
    const news = plain(req.getNews());
    const changed = [...new Set([...Object.keys(olds), ...Object.keys(news)])].filter((k) => !isDeepStrictEqual(olds[k], news[k]));
    const res = new providerProto.DiffResponse().setDiffsList(changed);
    return res.setChanges(changed.length === 0 ? providerProto.DiffResponse.DiffChanges.DIFF_NONE : providerProto.DiffResponse.DiffChanges.DIFF_SOME);
  }),
  create: unary(async (req: InstanceType<typeof providerProto.CreateRequest>) => {
    const inputs = plain(req.getProperties());
    const doc = (await call("POST", "/cohorts", { name: inputs["name"] }))!;
    return new providerProto.CreateResponse().setId(String(doc["id"])).setProperties(struct({ ...inputs, ...doc }));
  }),
  read: unary(async (req: InstanceType<typeof providerProto.ReadRequest>) => {
    const res = new providerProto.ReadResponse();
    if (!reads) return res.setId(req.getId()).setProperties(req.getProperties()).setInputs(req.getInputs());
    const doc = await call("GET", `/cohorts/${req.getId()}`);
    if (doc === undefined) return res; // gone
    return res.setId(req.getId()).setProperties(struct({ ...plain(req.getProperties()), ...doc })).setInputs(req.getInputs());
  }),
  delete: unary(async (req: InstanceType<typeof providerProto.DeleteRequest>) => {
    await call("DELETE", `/cohorts/${req.getId()}`);
    return new emptyProto.Empty();
  }),
});
