// The engine side of Pulumi's language protocol: the ResourceMonitor and Engine gRPC services a program talks to.
import type { Server as GrpcServer, sendUnaryData, ServerUnaryCall, ServiceError, UntypedServiceImplementation } from "@grpc/grpc-js";
import { createServer, type AddressInfo, type Socket } from "node:net";
import { emptyProto, engineProto, engineRpc, grpc, resourceProto, resourceRpc, structProto, SERVER_OPTIONS } from "../protocol/proto.ts";
import { isAbsolute, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { decodeStruct, encodeMessage, MessageReader, readSourcePosition, readStackTrace, type SourcePosition } from "../protocol/wire.ts";
import type { PropertyMap } from "../protocol/values.ts";
import type { TimedOperation } from "./timeouts.ts";

export interface Registration {
  type: string;
  name: string;
  parent: string;
  custom: boolean;
  inputs: PropertyMap;
  dependencies: string[];
  propertyDependencies: Record<string, string[]>;
  provider: string;
  protect?: boolean;
  retainOnDelete?: boolean;
  deleteBeforeReplace?: boolean;
  ignoreChanges: string[];
  replaceOnChanges: string[];
  additionalSecretOutputs: string[];
  aliasUrns: string[];
  importId: string;
  /** As the program gave them (Go durations, "" when not given); the step generator checks them. */
  customTimeouts?: Partial<Record<TimedOperation, string>>;
  /** Where the program declared it, as Pulumi records it: `project:///index.ts#12,5`. */
  sourcePosition?: string;
  /** The provider version and download URL the resource asks for: they name its default provider. */
  version?: string;
  pluginDownloadURL?: string;
}

export interface ReadRequest {
  id: string;
  type: string;
  name: string;
  parent: string;
  inputs: PropertyMap;
  dependencies: string[];
  provider: string;
  additionalSecretOutputs: string[];
  version?: string;
  pluginDownloadURL?: string;
}

export type Severity = "debug" | "info" | "warning" | "error";

/** A registration's answer; `unknown`: the resource did not run, so its outputs stay unknown to the program. */
export interface Registered {
  urn: string;
  id: string;
  outputs: PropertyMap;
  unknown?: boolean;
}

export interface MonitorHandler {
  register(reg: Registration): Promise<Registered>;
  registerOutputs(urn: string, outputs: PropertyMap): Promise<void>;
  /** `Resource.get(name, id)`: reads an existing resource the stack does not manage. */
  read(req: ReadRequest): Promise<{ urn: string; outputs: PropertyMap }>;
  /** Calls a function; `provider` is the reference of the provider the program chose, if it chose one. */
  invoke(token: string, args: PropertyMap, provider?: string): Promise<PropertyMap>;
  /** `ephemeral`: a passing status (a build's progress), shown while it holds and not kept. */
  log(severity: Severity, message: string, urn: string, ephemeral?: boolean): void;
}

/** A handler whose calls wait for `ready`: logs keep their order, and are dropped if it never comes. */
export function whenReady(ready: Promise<MonitorHandler>): MonitorHandler {
  let handler: MonitorHandler | undefined;
  const waiting = ready.then((h) => (handler = h));
  waiting.catch(() => undefined);
  const get = async () => handler ?? (await waiting);
  return {
    register: async (reg) => (await get()).register(reg),
    registerOutputs: async (urn, outputs) => (await get()).registerOutputs(urn, outputs),
    read: async (req) => (await get()).read(req),
    invoke: async (token, args, provider) => (await get()).invoke(token, args, provider),
    log: (severity, message, urn, ephemeral) => {
      if (handler) handler.log(severity, message, urn, ephemeral);
      else waiting.then((h) => h.log(severity, message, urn, ephemeral), () => undefined);
    },
  };
}

/** Monitor features this engine implements; the SDK adapts to the rest (e.g. computes alias URNs itself). */
const FEATURES = new Set(["secrets"]);

/** The stubs' enums, read when a monitor starts: importing this module loads no stub. */
function stubEnums(): { featureEnums: number[]; severities: Record<number, Severity> } {
  return {
    featureEnums: [resourceProto.ResourceMonitorFeature.RESOURCE_MONITOR_FEATURE_SECRETS],
    severities: {
      [engineProto.LogSeverity.DEBUG]: "debug",
      [engineProto.LogSeverity.INFO]: "info",
      [engineProto.LogSeverity.WARNING]: "warning",
      [engineProto.LogSeverity.ERROR]: "error",
    },
  };
}

type JsStruct = Record<string, import("google-protobuf/google/protobuf/struct_pb.js").JavaScriptValue>;

function failure(e: unknown): Partial<ServiceError> {
  return { code: grpc.status.UNKNOWN, details: e instanceof Error ? e.message : String(e) };
}

/** Wraps an async handler as a gRPC unary method whose errors become status errors. */
function unary<Req, Res>(fn: (req: Req) => Promise<Res> | Res) {
  return (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>) => {
    Promise.resolve()
      .then(() => fn(call.request))
      .then((res) => callback(null, res), (e: unknown) => callback(failure(e), null));
  };
}

/** A registration as read off the wire, and the positions that tell where it was declared. */
interface DecodedRegistration {
  reg: Registration;
  /** The SDK's own position, then its stack trace's frames. */
  frames: SourcePosition[];
}

/** RegisterResourceResponse's fields (resource.proto). */
const RESPONSE = { urn: 1, id: 2, object: 3, unknown: 8 } as const;

/** Reads a RegisterResourceRequest's bytes (resource.proto's field numbers): the fields the engine uses. */
function readRegistration(buf: Uint8Array): DecodedRegistration {
  const reg: Registration = {
    type: "", name: "", parent: "", custom: false, inputs: {}, dependencies: [], propertyDependencies: {}, provider: "", ignoreChanges: [],
    replaceOnChanges: [], additionalSecretOutputs: [], aliasUrns: [], importId: "", version: "", pluginDownloadURL: "",
  };
  let position: SourcePosition | undefined;
  let stack: SourcePosition[] = [];
  let timeouts: Uint8Array | undefined;
  let protect: boolean | undefined;
  let retainOnDelete: boolean | undefined;
  let deleteBeforeReplace = false;
  let deleteBeforeReplaceDefined = false;
  for (const r = new MessageReader(buf); r.next();) {
    switch (r.field) {
      case 1: reg.type = r.string(); break;
      case 2: reg.name = r.string(); break;
      case 3: reg.parent = r.string(); break;
      case 4: reg.custom = r.bool(); break;
      case 5: reg.inputs = decodeStruct(r.bytes()) as PropertyMap; break;
      case 6: protect = r.bool(); break;
      case 7: reg.dependencies.push(r.string()); break;
      case 8: reg.provider = r.string(); break;
      case 9: {
        // map<string, PropertyDependencies>: entries of key (1) and a message of urns (1).
        let key = "";
        const urns: string[] = [];
        for (const entry = new MessageReader(r.bytes()); entry.next();) {
          if (entry.field === 1) key = entry.string();
          else if (entry.field !== 2) entry.skip();
          else for (const deps = new MessageReader(entry.bytes()); deps.next();) {
            if (deps.field === 1) urns.push(deps.string());
            else deps.skip();
          }
        }
        reg.propertyDependencies[key] = urns;
        break;
      }
      case 10: deleteBeforeReplace = r.bool(); break;
      case 11: reg.version = r.string(); break;
      case 12: reg.ignoreChanges.push(r.string()); break;
      case 14: reg.additionalSecretOutputs.push(r.string()); break;
      case 15: reg.aliasUrns.push(r.string()); break;
      case 16: reg.importId = r.string(); break;
      case 17: timeouts = r.bytes(); break;
      case 18: deleteBeforeReplaceDefined = r.bool(); break;
      case 23: reg.replaceOnChanges.push(r.string()); break;
      case 24: reg.pluginDownloadURL = r.string(); break;
      case 25: retainOnDelete = r.bool(); break;
      case 29: position = readSourcePosition(r.bytes()); break;
      case 35: stack = readStackTrace(r.bytes()); break;
      default: r.skip();
    }
  }
  if (timeouts) {
    const given: NonNullable<Registration["customTimeouts"]> = { create: "", update: "", delete: "" };
    for (const t = new MessageReader(timeouts); t.next();) {
      if (t.field === 1) given.create = t.string();
      else if (t.field === 2) given.update = t.string();
      else if (t.field === 3) given.delete = t.string();
      else t.skip();
    }
    reg.customTimeouts = given;
  }
  if (protect !== undefined) reg.protect = protect;
  if (retainOnDelete !== undefined) reg.retainOnDelete = retainOnDelete;
  if (deleteBeforeReplaceDefined) reg.deleteBeforeReplace = deleteBeforeReplace;
  return { reg, frames: position ? [position, ...stack] : stack };
}

/**
 * Pulumi's ResourceMonitor service, its RegisterResource read and answered straight between protobuf bytes and
 * plain values (wire.ts): google-protobuf's messages were most of each answer's cost. The bytes are the same.
 */
function monitorService(): typeof resourceRpc.ResourceMonitorService {
  const service = resourceRpc.ResourceMonitorService;
  return {
    ...service,
    registerResource: {
      ...service.registerResource,
      requestDeserialize: readRegistration,
      responseSerialize: ({ urn, id, outputs, unknown }: Registered): Buffer => encodeMessage([
        { field: RESPONSE.urn, string: urn },
        { field: RESPONSE.id, string: id },
        { field: RESPONSE.object, struct: outputs },
        { field: RESPONSE.unknown, bool: unknown === true },
      ]),
    },
  } as unknown as typeof service;
}

export interface MonitorServer {
  address: string;
  close(): Promise<void>;
}

/**
 * The first frame inside the project and outside node_modules: the SDK's own position names the resource class's
 * constructor (a library file), its stack trace the program line that called it.
 */
function sourcePosition(frames: readonly SourcePosition[], projectFile: (uri: string) => string | undefined): string | undefined {
  for (const pos of frames) {
    if (pos.line <= 0) continue;
    const rel = projectFile(pos.uri);
    if (rel !== undefined) return `project:///${rel}#${pos.line}${pos.column > 0 ? `,${pos.column}` : ""}`;
  }
  return undefined;
}

/**
 * A frame's file as a path in the project (`/`-separated), or undefined when it is outside it or in node_modules;
 * remembered by URI, as every resource's stack names the same few files.
 */
function projectFiles(projectDir: string): (uri: string) => string | undefined {
  const known = new Map<string, string | undefined>();
  return (uri) => {
    if (known.has(uri)) return known.get(uri);
    let rel: string | undefined;
    if (uri.startsWith("file:")) {
      // The SDK makes a URL of each frame's file, which under ESM already is one: `file:///program/file:/...`.
      const path = fileURLToPath(uri);
      rel = relative(projectDir, path.includes("/file:/") ? fileURLToPath(path.slice(path.indexOf("file:/"))) : path).split(sep).join("/");
      if (rel.startsWith("..") || isAbsolute(rel) || rel.split("/").includes("node_modules")) rel = undefined;
    }
    known.set(uri, rel);
    return rel;
  };
}

/**
 * Serves the monitor on a port of its own. The address is known before grpc-js and the protocol's stubs load (a
 * tenth of a second and more), so a program given it boots meanwhile: its first connections wait, what they send
 * buffered, until the gRPC server takes them.
 */
export async function startMonitor(handler: MonitorHandler, projectDir?: string): Promise<MonitorServer> {
  const listener = createServer();
  const waiting: Socket[] = [];
  const ignore = () => undefined; // a program gone before the server took its connection is no error of the run's
  let take: ((socket: Socket) => void) | undefined;
  listener.on("connection", (socket) => {
    if (take) return take(socket);
    socket.on("error", ignore);
    waiting.push(socket);
  });
  await new Promise<void>((resolve, reject) => {
    listener.once("error", reject);
    listener.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = listener.address() as AddressInfo;
  const serving = new Promise<GrpcServer>((resolve, reject) => {
    setImmediate(() => {
      try {
        const server = monitorServer(handler, projectDir);
        const injector = server.createConnectionInjector(grpc.ServerCredentials.createInsecure());
        take = (socket) => injector.injectConnection(socket);
        for (const socket of waiting.splice(0)) {
          socket.off("error", ignore);
          take(socket);
        }
        resolve(server);
      } catch (error) {
        for (const socket of waiting.splice(0)) socket.destroy();
        reject(error as Error);
      }
    });
  });
  serving.catch(() => undefined); // its failure ends the connections; close reports nothing more
  return {
    address: `127.0.0.1:${port}`,
    close: async () => {
      // The listener closes once its connections have: the gRPC server ends them first.
      const closed = new Promise<void>((resolve) => listener.close(() => resolve()));
      for (const socket of waiting.splice(0)) socket.destroy();
      const server = await serving.catch(() => undefined);
      if (server) await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
      await closed;
    },
  };
}

/** The gRPC server of the monitor and engine services, not bound to a port: connections are handed to it. */
function monitorServer(handler: MonitorHandler, projectDir?: string): GrpcServer {
  let rootUrn = "";
  const { featureEnums, severities } = stubEnums();
  const projectFile = projectDir === undefined ? undefined : projectFiles(projectDir);
  const monitor = {
    getDeploymentInfo: unary(() => new resourceProto.DeploymentInfo().setSupportedfeaturesList(featureEnums)),
    supportsFeature: unary((req: InstanceType<typeof resourceProto.SupportsFeatureRequest>) => new resourceProto.SupportsFeatureResponse().setHassupport(FEATURES.has(req.getId()))),
    registerResource: unary(async ({ reg, frames }: DecodedRegistration): Promise<Registered> => {
      const declaredAt = projectFile && sourcePosition(frames, projectFile);
      return handler.register(declaredAt ? { ...reg, sourcePosition: declaredAt } : reg);
    }),
    registerResourceOutputs: unary(async (req: InstanceType<typeof resourceProto.RegisterResourceOutputsRequest>) => {
      await handler.registerOutputs(req.getUrn(), (req.getOutputs()?.toJavaScript() ?? {}) as PropertyMap);
      return new emptyProto.Empty();
    }),
    invoke: unary(async (req: InstanceType<typeof resourceProto.ResourceInvokeRequest>) => {
      const result = await handler.invoke(req.getTok(), (req.getArgs()?.toJavaScript() ?? {}) as PropertyMap, req.getProvider());
      return new resourceProto.ResourceInvokeResponse().setReturn(structProto.Struct.fromJavaScript(result as JsStruct));
    }),
    readResource: unary(async (req: InstanceType<typeof resourceProto.ReadResourceRequest>) => {
      const { urn, outputs } = await handler.read({
        id: req.getId(),
        type: req.getType(),
        name: req.getName(),
        parent: req.getParent(),
        inputs: (req.getProperties()?.toJavaScript() ?? {}) as PropertyMap,
        dependencies: req.getDependenciesList(),
        provider: req.getProvider(),
        additionalSecretOutputs: req.getAdditionalsecretoutputsList(),
        version: req.getVersion(),
        pluginDownloadURL: req.getPlugindownloadurl(),
      });
      return new resourceProto.ReadResourceResponse().setUrn(urn).setProperties(structProto.Struct.fromJavaScript(outputs as JsStruct));
    }),
    registerStackTransform: unary(() => {
      throw new Error("stack transforms are not supported by the local engine; use the Pulumi CLI");
    }),
    signalAndWaitForShutdown: unary(() => new emptyProto.Empty()),
  };
  const engine = {
    log: unary((req: InstanceType<typeof engineProto.LogRequest>) => {
      handler.log(severities[req.getSeverity()] ?? "info", req.getMessage(), req.getUrn(), req.getEphemeral());
      return new emptyProto.Empty();
    }),
    getRootResource: unary(() => new engineProto.GetRootResourceResponse().setUrn(rootUrn)),
    setRootResource: unary((req: InstanceType<typeof engineProto.SetRootResourceRequest>) => {
      rootUrn = req.getUrn();
      return new engineProto.SetRootResourceResponse();
    }),
    requirePulumiVersion: unary(() => new engineProto.RequirePulumiVersionResponse()),
  };
  const server = new grpc.Server(SERVER_OPTIONS);
  server.addService(monitorService(), monitor as unknown as UntypedServiceImplementation);
  server.addService(engineRpc.EngineService, engine as unknown as UntypedServiceImplementation);
  return server;
}
