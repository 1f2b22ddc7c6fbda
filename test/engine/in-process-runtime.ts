// A language runtime for engine tests, after Pulumi's pkg/resource/deploy/deploytest: the program is a function in the
// test's own process that calls the engine's real monitor over its gRPC services, as @pulumi/pulumi's runtime does
// (the stack resource first, then the program's resources, then the stack's outputs). Plans, steps, the journal and
// pending operations are the engine's own; no Node program is spawned.
import type { ServiceError } from "@grpc/grpc-js";
import type { LanguageRuntime, ProgramRun } from "../../provider/engine/language.ts";
import type { Severity } from "../../provider/engine/monitor.ts";
import { emptyProto, engineProto, engineRpc, grpc, resourceProto, resourceRpc, structProto } from "../../provider/protocol/proto.ts";
import { makeSecret, type PropertyMap, type Value } from "../../provider/protocol/values.ts";

type JsStruct = Record<string, import("google-protobuf/google/protobuf/struct_pb.js").JavaScriptValue>;

/** The options of a registration, as a program gives them (URNs where the SDK takes resources). */
export interface ResourceOptions {
  /** Default: the stack, as for the SDK's resources without a parent. */
  parent?: string;
  dependsOn?: string[];
  /** The URNs each input derives from. */
  propertyDependencies?: Record<string, string[]>;
  /** A provider reference, `<urn>::<id>`. */
  provider?: string;
  protect?: boolean;
  retainOnDelete?: boolean;
  deleteBeforeReplace?: boolean;
  ignoreChanges?: string[];
  replaceOnChanges?: string[];
  additionalSecretOutputs?: string[];
  aliases?: string[];
  importId?: string;
  customTimeouts?: { create?: string; update?: string; delete?: string };
  version?: string;
}

export interface Registered {
  urn: string;
  id: string;
  outputs: PropertyMap;
  /** The resource did not run (it failed or was skipped): its outputs are unknown. */
  unknown: boolean;
}

/** Keys whose value is undefined are left out, as the SDK leaves out inputs that are not set. */
function struct(m: Record<string, Value | undefined>) {
  return structProto.Struct.fromJavaScript(Object.fromEntries(Object.entries(m).filter(([, v]) => v !== undefined)) as JsStruct);
}

const SEVERITIES: Record<Severity, number> = {
  debug: engineProto.LogSeverity.DEBUG,
  info: engineProto.LogSeverity.INFO,
  warning: engineProto.LogSeverity.WARNING,
  error: engineProto.LogSeverity.ERROR,
};

/** The calls a program makes on the engine's ResourceMonitor and Engine services. */
export class MonitorClient {
  readonly #monitor: InstanceType<typeof resourceRpc.ResourceMonitorClient>;
  readonly #engine: InstanceType<typeof engineRpc.EngineClient>;
  #stackUrn = "";

  constructor(address: string) {
    this.#monitor = new resourceRpc.ResourceMonitorClient(address, grpc.credentials.createInsecure());
    this.#engine = new engineRpc.EngineClient(address, grpc.credentials.createInsecure());
  }

  #call<Req, Res>(client: "monitor" | "engine", method: string, req: Req): Promise<Res> {
    const target = (client === "monitor" ? this.#monitor : this.#engine) as unknown as Record<string, (req: Req, cb: (err: ServiceError | null, res: Res) => void) => void>;
    return new Promise((resolve, reject) => target[method]!.call(client === "monitor" ? this.#monitor : this.#engine, req, (err, res) => (err ? reject(new Error(err.details || err.message)) : resolve(res))));
  }

  /** The stack resource, which the others are parented to; registered by the runtime before the program runs. */
  async registerStack(project: string, stack: string): Promise<string> {
    const { urn } = await this.registerResource("pulumi:pulumi:Stack", `${project}-${stack}`, false, {}, { parent: "" });
    this.#stackUrn = urn;
    await this.#call("engine", "setRootResource", new engineProto.SetRootResourceRequest().setUrn(urn));
    return urn;
  }

  async registerResource(type: string, name: string, custom: boolean, inputs: Record<string, Value | undefined>, opts: ResourceOptions = {}): Promise<Registered> {
    const req = new resourceProto.RegisterResourceRequest();
    req.setType(type).setName(name).setCustom(custom).setObject(struct(inputs)).setParent(opts.parent ?? this.#stackUrn);
    const propertyDependencies = opts.propertyDependencies ?? {};
    req.setDependenciesList([...new Set([...(opts.dependsOn ?? []), ...Object.values(propertyDependencies).flat()])]);
    for (const [key, urns] of Object.entries(propertyDependencies)) {
      req.getPropertydependenciesMap().set(key, new resourceProto.RegisterResourceRequest.PropertyDependencies().setUrnsList(urns));
    }
    req.setProvider(opts.provider ?? "");
    if (opts.protect !== undefined) req.setProtect(opts.protect);
    if (opts.retainOnDelete !== undefined) req.setRetainondelete(opts.retainOnDelete);
    if (opts.deleteBeforeReplace !== undefined) req.setDeletebeforereplace(opts.deleteBeforeReplace).setDeletebeforereplacedefined(true);
    req.setIgnorechangesList(opts.ignoreChanges ?? []);
    req.setReplaceonchangesList(opts.replaceOnChanges ?? []);
    req.setAdditionalsecretoutputsList(opts.additionalSecretOutputs ?? []);
    req.setAliasurnsList(opts.aliases ?? []);
    req.setImportid(opts.importId ?? "");
    req.setVersion(opts.version ?? "");
    req.setSupportspartialvalues(true);
    if (opts.customTimeouts) {
      const t = opts.customTimeouts;
      req.setCustomtimeouts(new resourceProto.RegisterResourceRequest.CustomTimeouts().setCreate(t.create ?? "").setUpdate(t.update ?? "").setDelete(t.delete ?? ""));
    }
    const res = await this.#call<typeof req, InstanceType<typeof resourceProto.RegisterResourceResponse>>("monitor", "registerResource", req);
    return { urn: res.getUrn(), id: res.getId(), outputs: (res.getObject()?.toJavaScript() ?? {}) as PropertyMap, unknown: res.getUnknown() };
  }

  async registerResourceOutputs(urn: string, outputs: Record<string, Value | undefined>): Promise<void> {
    await this.#call("monitor", "registerResourceOutputs", new resourceProto.RegisterResourceOutputsRequest().setUrn(urn).setOutputs(struct(outputs)));
  }

  /** `Resource.get(name, id)` and StackReference: a resource the program reads without managing it. */
  async readResource(type: string, name: string, id: string, inputs: Record<string, Value | undefined>, opts: Pick<ResourceOptions, "parent" | "dependsOn" | "provider" | "additionalSecretOutputs"> = {}): Promise<{ urn: string; outputs: PropertyMap }> {
    const req = new resourceProto.ReadResourceRequest();
    req.setId(id).setType(type).setName(name).setParent(opts.parent ?? this.#stackUrn).setProperties(struct(inputs));
    req.setDependenciesList(opts.dependsOn ?? []).setProvider(opts.provider ?? "").setAdditionalsecretoutputsList(opts.additionalSecretOutputs ?? []);
    const res = await this.#call<typeof req, InstanceType<typeof resourceProto.ReadResourceResponse>>("monitor", "readResource", req);
    return { urn: res.getUrn(), outputs: (res.getProperties()?.toJavaScript() ?? {}) as PropertyMap };
  }

  async invoke(token: string, args: PropertyMap, provider = ""): Promise<PropertyMap> {
    const req = new resourceProto.ResourceInvokeRequest().setTok(token).setArgs(struct(args)).setProvider(provider);
    const res = await this.#call<typeof req, InstanceType<typeof resourceProto.ResourceInvokeResponse>>("monitor", "invoke", req);
    return (res.getReturn()?.toJavaScript() ?? {}) as PropertyMap;
  }

  async log(severity: Severity, message: string, urn = ""): Promise<void> {
    await this.#call<InstanceType<typeof engineProto.LogRequest>, InstanceType<typeof emptyProto.Empty>>("engine", "log", new engineProto.LogRequest().setSeverity(SEVERITIES[severity]).setMessage(message).setUrn(urn));
  }

  close(): void {
    this.#monitor.close();
    this.#engine.close();
  }
}

/** The stack's config as the program reads it from the runtime's environment (PULUMI_CONFIG). */
export class ProgramConfig {
  readonly #project: string;
  readonly #values: Record<string, string>;

  constructor(project: string, env: NodeJS.ProcessEnv) {
    this.#project = project;
    this.#values = JSON.parse(env["PULUMI_CONFIG"] ?? "{}") as Record<string, string>;
  }

  #key(key: string): string {
    return key.includes(":") ? key : `${this.#project}:${key}`;
  }

  get(key: string): string | undefined {
    return this.#values[this.#key(key)];
  }

  /** The value, as a secret when the stack keeps it as one (`config.getSecret`). */
  getSecret(key: string): Value | undefined {
    const value = this.get(key);
    return value === undefined ? undefined : makeSecret(value);
  }

  /** Whether the value is `"true"`, as the notes program's flags are. */
  flag(key: string): boolean {
    return this.get(key) === "true";
  }
}

export interface ProgramContext {
  project: string;
  stack: string;
  dryRun: boolean;
  config: ProgramConfig;
  /** The environment the program runs in (the engine's, plus the run's). */
  env: NodeJS.ProcessEnv;
  monitor: MonitorClient;
}

/** A program: registers its resources through the monitor and answers the stack's outputs. */
export type Program = (ctx: ProgramContext) => Promise<Record<string, Value | undefined>>;

/** Exit code of @pulumi/pulumi's runtime after it logged the program's error. */
const EXIT_AFTER_LOGGED_ERROR = 32;

/** Runs `program` in this process against the engine's monitor, as @pulumi/pulumi's Node runtime runs a program. */
export function inProcessRuntime(program: Program): LanguageRuntime {
  return {
    async run(run: ProgramRun): Promise<number> {
      const monitor = new MonitorClient(run.monitorAddress);
      const stopped = new Promise<number>((resolve) => {
        if (run.signal?.aborted) resolve(1);
        run.signal?.addEventListener("abort", () => resolve(1), { once: true });
      });
      const ran = (async () => {
        const stackUrn = await monitor.registerStack(run.project.name, run.stack);
        try {
          const ctx: ProgramContext = { project: run.project.name, stack: run.stack, dryRun: run.dryRun, config: new ProgramConfig(run.project.name, run.env), env: run.env, monitor };
          await monitor.registerResourceOutputs(stackUrn, await program(ctx));
          return 0;
        } catch (e) {
          await monitor.log("error", `Running program failed with an unhandled exception:\n${e instanceof Error ? (e.stack ?? e.message) : String(e)}`, stackUrn).catch(() => undefined);
          return EXIT_AFTER_LOGGED_ERROR;
        }
      })();
      try {
        return await Promise.race([ran, stopped]);
      } finally {
        monitor.close();
      }
    },
  };
}
