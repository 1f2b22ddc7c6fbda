// A package's resource provider plugin, spawned and spoken to over gRPC as Pulumi's engine does: the resource calls of
// every provider, plus its configuration, functions, schema and cancellation. How to start it is the extension's.
import type { ConfigureResponse, DiffResponse, GetSchemaResponse, InvokeResponse } from "@pulumi/pulumi/proto/provider_pb.js";
import type { PluginInfo } from "@pulumi/pulumi/proto/plugin_pb.js";
import type { Empty } from "google-protobuf/google/protobuf/empty_pb.js";
import { emptyProto, providerProto } from "../protocol/proto.ts";
import type { PluginLaunch } from "./plugin-launch.ts";
import { connectProvider, fromStruct, ProviderHost, servedConnection } from "./provider-host.ts";
import type { CheckResult } from "./resource-calls.ts";
import type { PropertyMap } from "../protocol/values.ts";

export interface PluginHostOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The engine's Log service, where the plugin sends warnings and progress (its argument, as Pulumi passes it). */
  engineAddress?: string;
  /** What the plugin prints besides its port, a line at a time. */
  onOutput?: (line: string) => void;
}

/** What Configure answers: the features the plugin supports. */
export interface Configured {
  acceptSecrets: boolean;
  supportsPreview: boolean;
  acceptResources: boolean;
}

/** The configuration of one provider: a default provider's stack config as variables, or an explicit one's inputs. */
export type ProviderConfig = { variables: Record<string, string> } | { args: PropertyMap };

export class PluginHost extends ProviderHost {
  /** Starts the plugin as `launch` says, with the engine's address (when known) as its last argument. */
  static async start(options: PluginHostOptions & { launch: PluginLaunch }): Promise<PluginHost> {
    const { launch, engineAddress } = options;
    if ("serve" in launch) {
      const served = await launch.serve({ env: options.env, ...(engineAddress ? { engineAddress } : {}) });
      return new PluginHost(launch.name, servedConnection(served), true);
    }
    const { name, args, command } = launch;
    const all = engineAddress ? [...args, engineAddress] : args;
    return new PluginHost(name, await connectProvider(name, all, { ...options, ...(command ? { command } : {}) }), true);
  }

  async configure(config: ProviderConfig): Promise<Configured> {
    const req = new providerProto.ConfigureRequest();
    if ("args" in config) req.setArgs(this.toStruct(config.args));
    else for (const [key, value] of Object.entries(config.variables)) req.getVariablesMap().set(key, value);
    req.setAcceptsecrets(true);
    req.setAcceptresources(true);
    const res = await this.call<ConfigureResponse>("configure", (c, cb) => c.configure(req, cb));
    return { acceptSecrets: res.getAcceptsecrets(), supportsPreview: res.getSupportspreview(), acceptResources: res.getAcceptresources() };
  }

  /** Checks an explicit provider's inputs (its config). */
  checkConfig(urn: string, olds: PropertyMap, news: PropertyMap): Promise<CheckResult> {
    return this.checkCall("checkConfig", urn, olds, news);
  }

  /** Compares an explicit provider's old and new config: the paths that differ, and whether any replaces it. */
  async diffConfig(urn: string, olds: PropertyMap, news: PropertyMap): Promise<{ changes: "some" | "none"; replaces: string[]; diffs: string[] }> {
    const req = new providerProto.DiffRequest();
    req.setUrn(urn);
    req.setOlds(this.toStruct(olds));
    req.setOldInputs(this.toStruct(olds));
    req.setNews(this.toStruct(news));
    const res = await this.call<DiffResponse>("diffConfig", (c, cb) => c.diffConfig(req, cb));
    const changes = res.getChanges() === providerProto.DiffResponse.DiffChanges.DIFF_SOME ? "some" : "none";
    return { changes, replaces: res.getReplacesList(), diffs: res.getDiffsList() };
  }

  /** Calls a function (`<package>:index:getCohort`, ...). */
  async invoke(token: string, args: PropertyMap): Promise<PropertyMap> {
    const req = new providerProto.InvokeRequest();
    req.setTok(token);
    req.setArgs(this.toStruct(args));
    const res = await this.call<InvokeResponse>(token, (c, cb) => c.invoke(req, cb));
    const failures = res.getFailuresList();
    if (failures.length > 0) throw new Error(`${token}: ${failures.map((f) => `${f.getProperty() || "(call)"}: ${f.getReason()}`).join("; ")}`);
    return fromStruct(res.getReturn());
  }

  async schema(): Promise<Record<string, unknown>> {
    const res = await this.call<GetSchemaResponse>("getSchema", (c, cb) => c.getSchema(new providerProto.GetSchemaRequest(), cb));
    return JSON.parse(res.getSchema()) as Record<string, unknown>;
  }

  async version(): Promise<string> {
    const res = await this.call<PluginInfo>("getPluginInfo", (c, cb) => c.getPluginInfo(new emptyProto.Empty(), cb));
    return res.getVersion();
  }

  /** Asks the plugin to stop what it is doing: calls in flight fail, keeping what they created. */
  async cancel(): Promise<void> {
    await this.call<Empty>("cancel", (c, cb) => c.cancel(new emptyProto.Empty(), cb));
  }
}
