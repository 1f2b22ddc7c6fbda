// Drives the real `pulumi-resource-audience` process over Pulumi's ResourceProvider gRPC, as the engine does:
// spawn it, read the port from its first line, call it with Structs whose secrets are wrapped.
import type { ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { Metadata, ServiceError } from "@grpc/grpc-js";
import type { ResourceProviderClient } from "@pulumi/pulumi/proto/provider_grpc_pb.js";
import type { JavaScriptValue } from "google-protobuf/google/protobuf/struct_pb.js";
import { grpc, providerProto, providerRpc, statusProto, structProto, emptyProto } from "../../provider/engine/proto.ts";
import { SECRET_SIG, SIG_KEY } from "../../provider/engine/values.ts";
import { launchPlugin, stopPlugin } from "../../provider/plugin/launch.ts";
import { startEmulator, type EmulatorOptions } from "pulumi-audience/emulator";
import { client, type Client } from "../emulator/helpers.ts";

export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const PLUGIN_MAIN = fileURLToPath(new URL("../../provider/plugin/main.ts", import.meta.url));

export type Props = Record<string, unknown>;

/** A value as the engine sends a secret to a provider that accepts secrets. */
export function secret(value: unknown): Props {
  return { [SIG_KEY]: SECRET_SIG, value };
}

export function isSecret(value: unknown): boolean {
  return typeof value === "object" && value !== null && (value as Props)[SIG_KEY] === SECRET_SIG;
}

export function urnOf(type: string, name = "test"): string {
  return `urn:pulumi:dev::audience::${type}::${name}`;
}

/** A failed call; `initFailed` when the plugin kept a created resource in state. */
export class PluginError extends Error {
  readonly code: number;
  readonly initFailed: { id: string; properties: Props; reasons: string[] } | undefined;
  constructor(error: ServiceError) {
    super(error.details || error.message);
    this.code = error.code;
    this.initFailed = initFailure(error.metadata);
  }
}

function initFailure(metadata: Metadata | undefined): PluginError["initFailed"] {
  const raw = metadata?.get("grpc-status-details-bin")[0];
  if (!raw) return undefined;
  const status = statusProto.Status.deserializeBinary(typeof raw === "string" ? Buffer.from(raw, "base64") : raw);
  const any = status.getDetailsList().find((d) => d.getTypeName().endsWith("ErrorResourceInitFailed"));
  if (!any) return undefined;
  const detail = providerProto.ErrorResourceInitFailed.deserializeBinary(any.getValue_asU8());
  return { id: detail.getId(), properties: detail.getProperties()?.toJavaScript() ?? {}, reasons: detail.getReasonsList() };
}

// Through JSON, as the engine never sends undefined members.
const struct = (value: Props) => structProto.Struct.fromJavaScript(JSON.parse(JSON.stringify(value)) as Record<string, JavaScriptValue>);
const js = (value: { toJavaScript(): Props } | undefined): Props => value?.toJavaScript() ?? {};

export interface DetailedDiff {
  changes: "none" | "some" | "unknown";
  replaces: string[];
  diffs: string[];
  /** Property path -> ADD, UPDATE, DELETE, ADD_REPLACE, ... */
  detailed: Record<string, string>;
  hasDetailedDiff: boolean;
}

const KIND_NAMES = Object.fromEntries(Object.entries(providerProto.PropertyDiff.Kind).map(([name, value]) => [value, name]));

export class Plugin {
  readonly #child: ChildProcess;
  readonly #client: ResourceProviderClient;

  private constructor(child: ChildProcess, client: ResourceProviderClient, output: () => string) {
    this.#child = child;
    this.#client = client;
    Object.defineProperty(this, "output", { get: output });
  }

  /** Everything the plugin printed. */
  declare readonly output: string;

  static async start(env: NodeJS.ProcessEnv = {}): Promise<Plugin> {
    let output = "";
    const { child, port } = await launchPlugin("plugin", ["--conditions=source", PLUGIN_MAIN, "127.0.0.1:1"], {
      cwd: REPO_ROOT,
      // No credentials from the machine: each test configures its own.
      env: { ...process.env, AUDIENCE_API_KEY: "", AUDIENCE_BASE_URL: "", ...env },
      onOutput: (line) => { output += `${line}\n`; },
    });
    const client = new providerRpc.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as unknown as ResourceProviderClient;
    return new Plugin(child, client, () => output);
  }

  #call<Res>(invoke: (client: ResourceProviderClient, cb: (err: ServiceError | null, res: Res) => void) => unknown): Promise<Res> {
    return new Promise((resolve, reject) => {
      invoke(this.#client, (err, res) => (err ? reject(new PluginError(err)) : resolve(res)));
    });
  }

  async schema(): Promise<Props> {
    const res = await this.#call<import("@pulumi/pulumi/proto/provider_pb.js").GetSchemaResponse>((c, cb) => c.getSchema(new providerProto.GetSchemaRequest(), cb));
    return JSON.parse(res.getSchema()) as Props;
  }

  async version(): Promise<string> {
    const res = await this.#call<import("@pulumi/pulumi/proto/plugin_pb.js").PluginInfo>((c, cb) => c.getPluginInfo(new emptyProto.Empty(), cb));
    return res.getVersion();
  }

  /** Configure as the engine sends a default provider's stack config: `audience:config:<key>` variables. */
  async configure(config: Props): Promise<{ acceptSecrets: boolean; supportsPreview: boolean; acceptResources: boolean }> {
    const req = new providerProto.ConfigureRequest();
    for (const [key, value] of Object.entries(config)) req.getVariablesMap().set(`audience:config:${key}`, typeof value === "string" ? value : JSON.stringify(value));
    req.setAcceptsecrets(true);
    req.setAcceptresources(true);
    const res = await this.#call<import("@pulumi/pulumi/proto/provider_pb.js").ConfigureResponse>((c, cb) => c.configure(req, cb));
    return { acceptSecrets: res.getAcceptsecrets(), supportsPreview: res.getSupportspreview(), acceptResources: res.getAcceptresources() };
  }

  /** Configure as newer engines send an explicit provider's inputs: `args`, secrets wrapped. */
  async configureArgs(args: Props): Promise<void> {
    const req = new providerProto.ConfigureRequest();
    req.setArgs(struct(args));
    req.setAcceptsecrets(true);
    await this.#call((c, cb) => c.configure(req, cb));
  }

  async checkConfig(news: Props): Promise<{ inputs: Props; failures: { property: string; reason: string }[] }> {
    const req = new providerProto.CheckRequest();
    req.setUrn(urnOf("pulumi:providers:audience", "default"));
    req.setOlds(struct({}));
    req.setNews(struct(news));
    const res = await this.#call<import("@pulumi/pulumi/proto/provider_pb.js").CheckResponse>((c, cb) => c.checkConfig(req, cb));
    return { inputs: js(res.getInputs()), failures: res.getFailuresList().map((f) => ({ property: f.getProperty(), reason: f.getReason() })) };
  }

  async diffConfig(olds: Props, news: Props): Promise<{ changes: string; replaces: string[]; diffs: string[] }> {
    const req = new providerProto.DiffRequest();
    req.setUrn(urnOf("pulumi:providers:audience", "default"));
    req.setOlds(struct(olds));
    req.setOldInputs(struct(olds));
    req.setNews(struct(news));
    const res = await this.#call<import("@pulumi/pulumi/proto/provider_pb.js").DiffResponse>((c, cb) => c.diffConfig(req, cb));
    return { changes: res.getChanges() === providerProto.DiffResponse.DiffChanges.DIFF_SOME ? "some" : "none", replaces: res.getReplacesList(), diffs: res.getDiffsList() };
  }

  async check(type: string, olds: Props, news: Props): Promise<{ inputs: Props; failures: { property: string; reason: string }[] }> {
    const req = new providerProto.CheckRequest();
    req.setUrn(urnOf(type));
    req.setType(type);
    req.setOlds(struct(olds));
    req.setNews(struct(news));
    const res = await this.#call<import("@pulumi/pulumi/proto/provider_pb.js").CheckResponse>((c, cb) => c.check(req, cb));
    return { inputs: js(res.getInputs()), failures: res.getFailuresList().map((f) => ({ property: f.getProperty(), reason: f.getReason() })) };
  }

  async diff(type: string, id: string, olds: Props, news: Props): Promise<DetailedDiff> {
    const req = new providerProto.DiffRequest();
    req.setUrn(urnOf(type));
    req.setId(id);
    req.setOlds(struct(olds));
    req.setNews(struct(news));
    const res = await this.#call<import("@pulumi/pulumi/proto/provider_pb.js").DiffResponse>((c, cb) => c.diff(req, cb));
    const providerFamilies = providerProto.DiffResponse.DiffChanges;
    const detailed: Record<string, string> = {};
    res.getDetaileddiffMap().forEach((diff, path) => { detailed[path] = String(KIND_NAMES[diff.getKind()]); });
    return {
      changes: res.getChanges() === providerFamilies.DIFF_SOME ? "some" : res.getChanges() === providerFamilies.DIFF_NONE ? "none" : "unknown",
      replaces: res.getReplacesList(),
      diffs: res.getDiffsList(),
      detailed,
      hasDetailedDiff: res.getHasdetaileddiff(),
    };
  }

  async create(type: string, properties: Props, options: { timeout?: number; preview?: boolean } = {}): Promise<{ id: string; properties: Props }> {
    const req = new providerProto.CreateRequest();
    req.setUrn(urnOf(type));
    req.setType(type);
    req.setProperties(struct(properties));
    req.setTimeout(options.timeout ?? 0);
    req.setPreview(options.preview ?? false);
    const res = await this.#call<import("@pulumi/pulumi/proto/provider_pb.js").CreateResponse>((c, cb) => c.create(req, cb));
    return { id: res.getId(), properties: js(res.getProperties()) };
  }

  /** Read; with `state` and `inputs` left out, as `pulumi import` reads a resource by its id alone. */
  async read(type: string, id: string, state?: Props, inputs?: Props): Promise<{ id: string; properties: Props; inputs: Props }> {
    const req = new providerProto.ReadRequest();
    req.setUrn(urnOf(type));
    req.setId(id);
    if (state) req.setProperties(struct(state));
    if (inputs) req.setInputs(struct(inputs));
    const res = await this.#call<import("@pulumi/pulumi/proto/provider_pb.js").ReadResponse>((c, cb) => c.read(req, cb));
    return { id: res.getId(), properties: js(res.getProperties()), inputs: js(res.getInputs()) };
  }

  async update(type: string, id: string, olds: Props, news: Props, options: { timeout?: number; preview?: boolean } = {}): Promise<Props> {
    const req = new providerProto.UpdateRequest();
    req.setUrn(urnOf(type));
    req.setId(id);
    req.setOlds(struct(olds));
    req.setNews(struct(news));
    req.setTimeout(options.timeout ?? 0);
    req.setPreview(options.preview ?? false);
    const res = await this.#call<import("@pulumi/pulumi/proto/provider_pb.js").UpdateResponse>((c, cb) => c.update(req, cb));
    return js(res.getProperties());
  }

  async delete(type: string, id: string, properties: Props): Promise<void> {
    const req = new providerProto.DeleteRequest();
    req.setUrn(urnOf(type));
    req.setId(id);
    req.setProperties(struct(properties));
    await this.#call((c, cb) => c.delete(req, cb));
  }

  async invoke(token: string, args: Props): Promise<Props> {
    const req = new providerProto.InvokeRequest();
    req.setTok(token);
    req.setArgs(struct(args));
    const res = await this.#call<import("@pulumi/pulumi/proto/provider_pb.js").InvokeResponse>((c, cb) => c.invoke(req, cb));
    return js(res.getReturn());
  }

  async cancel(): Promise<void> {
    await this.#call((c, cb) => c.cancel(new emptyProto.Empty(), cb));
  }

  async close(): Promise<void> {
    this.#client.close();
    await stopPlugin(this.#child);
  }
}

export interface World {
  emulator: { url: string; apiKey: string };
  /** Direct calls to the emulator, to set up and inspect. */
  api: Client;
  /** A plugin configured with the emulator's default account. */
  plugin: Plugin;
  close(): Promise<void>;
}

export async function startWorld(builds?: EmulatorOptions["builds"]): Promise<World> {
  const emulator = await startEmulator({ port: 0, ...(builds ? { builds } : {}) });
  const plugin = await Plugin.start();
  await plugin.configure({ apiKey: emulator.apiKey, baseUrl: `${emulator.url}/v1` });
  return {
    emulator,
    api: client(emulator.url, emulator.apiKey),
    plugin,
    async close() {
      await plugin.close();
      await emulator.close();
    },
  };
}
