// The plugin spoken to as the Pulumi CLI does with a provider it did not start (PULUMI_DEBUG_PROVIDERS) or started
// through a language runtime: Handshake, Attach, then the usual calls, over a bare ResourceProviderClient.
import type { ServiceError } from "@grpc/grpc-js";
import type { ResourceProviderClient } from "@pulumi/pulumi/proto/provider_grpc_pb.js";
import { emptyProto, grpc, pluginProto, providerProto, providerRpc, structProto } from "../../provider/protocol/proto.ts";

type JsStruct = Parameters<typeof structProto.Struct.fromJavaScript>[0];

export interface RawPlugin {
  handshake(engineAddress: string, dir?: string): Promise<void>;
  attach(engineAddress: string): Promise<void>;
  version(): Promise<string>;
  schema(): Promise<Record<string, unknown>>;
  configure(variables: Record<string, string>): Promise<void>;
  create(urn: string, properties: Record<string, unknown>): Promise<{ id: string; properties: Record<string, unknown> }>;
  /** A provider's DiffConfig: the changed keys and the detailed diff's kind of each (`UPDATE`). */
  diffConfig(urn: string, olds: Record<string, unknown>, news: Record<string, unknown>): Promise<{ diffs: string[]; detailed: Record<string, string> }>;
  close(): void;
}

export function rawPlugin(port: string | number): RawPlugin {
  const client = new providerRpc.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as unknown as ResourceProviderClient;
  const call = <Res>(invoke: (cb: (err: ServiceError | null, res: Res) => void) => unknown) =>
    new Promise<Res>((resolve, reject) => invoke((err, res) => (err ? reject(err) : resolve(res))));
  return {
    async handshake(engineAddress, dir) {
      const req = new providerProto.ProviderHandshakeRequest();
      req.setEngineAddress(engineAddress);
      if (dir) req.setRootDirectory(dir).setProgramDirectory(dir);
      req.setConfigureWithUrn(true);
      await call((cb) => client.handshake(req, cb));
    },
    async attach(engineAddress) {
      await call((cb) => client.attach(new pluginProto.PluginAttach().setAddress(engineAddress), cb));
    },
    async version() {
      return (await call<InstanceType<typeof pluginProto.PluginInfo>>((cb) => client.getPluginInfo(new emptyProto.Empty(), cb))).getVersion();
    },
    async schema() {
      const res = await call<InstanceType<typeof providerProto.GetSchemaResponse>>((cb) => client.getSchema(new providerProto.GetSchemaRequest(), cb));
      return JSON.parse(res.getSchema()) as Record<string, unknown>;
    },
    async configure(variables) {
      const req = new providerProto.ConfigureRequest().setAcceptsecrets(true).setAcceptresources(true);
      for (const [key, value] of Object.entries(variables)) req.getVariablesMap().set(key, value);
      await call((cb) => client.configure(req, cb));
    },
    async create(urn, properties) {
      const req = new providerProto.CreateRequest().setUrn(urn).setProperties(structProto.Struct.fromJavaScript(properties as JsStruct));
      const res = await call<InstanceType<typeof providerProto.CreateResponse>>((cb) => client.create(req, cb));
      return { id: res.getId(), properties: res.getProperties()?.toJavaScript() ?? {} };
    },
    async diffConfig(urn, olds, news) {
      const req = new providerProto.DiffRequest().setUrn(urn).setOlds(structProto.Struct.fromJavaScript(olds as JsStruct)).setNews(structProto.Struct.fromJavaScript(news as JsStruct));
      const res = await call<InstanceType<typeof providerProto.DiffResponse>>((cb) => client.diffConfig(req, cb));
      const kinds = Object.fromEntries(Object.entries(providerProto.PropertyDiff.Kind).map(([name, kind]) => [kind, name]));
      const detailed: Record<string, string> = {};
      res.getDetaileddiffMap().forEach((diff, key) => (detailed[key] = kinds[diff.getKind()]!));
      return { diffs: res.getDiffsList(), detailed };
    },
    close() {
      client.close();
    },
  };
}
