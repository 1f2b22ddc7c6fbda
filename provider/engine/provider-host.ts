// A resource provider process spoken to over Pulumi's ResourceProvider gRPC, as Pulumi's engine does; here the real
// dynamic-provider host of @pulumi/pulumi (a package's plugin is in plugin-host.ts).
import type { Metadata, ServiceError } from "@grpc/grpc-js";
import type { ResourceProviderClient } from "@pulumi/pulumi/proto/provider_grpc_pb.js";
import type { CheckResponse, ConfigureResponse, CreateResponse, DiffResponse, ReadResponse, UpdateResponse } from "@pulumi/pulumi/proto/provider_pb.js";
import type { Empty } from "google-protobuf/google/protobuf/empty_pb.js";
import { grpc, providerProto, resolvePulumiModule, statusProto, structProto } from "../protocol/proto.ts";
import { heldStruct, heldStructService } from "../protocol/held-struct.ts";
import { tetherArgs } from "./tether.ts";
import type { EngineExtension } from "./extension.ts";
import type { ServedProvider } from "./plugin-launch.ts";
import type { CheckResult, DiffResult, ResourceCalls, WriteOptions } from "./resource-calls.ts";
import { FAILURE_CODE_KEY, NOTHING_MADE_CODE, OUTCOME_UNKNOWN_CODE } from "../protocol/markers.ts";
import { revealedMap, type PropertyMap } from "../protocol/values.ts";
import { launchPlugin, stopPlugin, type LaunchedPlugin, type LaunchOptions } from "../protocol/launch.ts";

let diffKinds: Record<number, string> | undefined;
/** A detailed diff's kind by its number, read from the stubs on first use: importing this module loads no stub. */
const diffKindName = (code: number) => (diffKinds ??= Object.fromEntries(Object.entries(providerProto.PropertyDiff.Kind).map(([name, value]) => [value, name])))[code];

/** A provider call that failed. */
export class ProviderError extends Error {
  override name = "ProviderError";
  /** The host died during the call: what the call did is unknown. */
  readonly hostDied: boolean;
  /**
   * What kind of failure it is, when the provider says: the service's error code (`INVALID_AUTHORIZATION`) or the
   * provider's own (`BUILD_FAILED`, OUTCOME_UNKNOWN_CODE). Pulumi's dynamic-provider host passes none on.
   */
  readonly code: string | undefined;
  constructor(message: string, options: { hostDied?: boolean; code?: string | undefined } = {}) {
    super(message);
    this.hostDied = options.hostDied ?? false;
    this.code = options.code;
  }
}

/**
 * The host's ErrorResourceInitFailed: a create or update that reached the service but did not finish, so the
 * resource exists (with this id and these outputs) and must be kept.
 */
export class ResourceInitFailedError extends ProviderError {
  override name = "ResourceInitFailedError";
  readonly id: string;
  readonly outputs: PropertyMap;
  readonly reasons: string[];
  constructor(message: string, id: string, outputs: PropertyMap, reasons: string[], code?: string) {
    super(message, { code });
    this.id = id;
    this.outputs = outputs;
    this.reasons = reasons;
  }
}

/** Whether a look for what an interrupted create made found nothing (see EngineExtension.decorateCreate). */
export function nothingMade(e: unknown): boolean {
  return e instanceof ProviderError && e.code === NOTHING_MADE_CODE;
}

/** Whether a failed write may have taken effect: the provider said so, or its host died during the call. */
export function outcomeUnknown(e: unknown): boolean {
  return e instanceof ProviderError && (e.hostDied || e.code === OUTCOME_UNKNOWN_CODE);
}

type Callback<Res> = (err: ServiceError | null, res: Res) => void;

type JsStruct = Record<string, import("google-protobuf/google/protobuf/struct_pb.js").JavaScriptValue>;

export function fromStruct(s: { toJavaScript(): Record<string, unknown> } | undefined): PropertyMap {
  return (s?.toJavaScript() ?? {}) as PropertyMap;
}

export interface ProviderHostOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  engineAddress: string;
  /** Output the provider code prints (console.log / console.error), a line at a time. */
  onOutput?: (line: string) => void;
}

/** A provider the host speaks to: its client, whether it has gone, and how to stop it. */
export interface ProviderConnection {
  client: ResourceProviderClient;
  /** Whether the provider has gone (its process exited): a call it left unanswered died with it. */
  gone(): boolean;
  /** The last lines it wrote to stderr, to explain its death. */
  stderr: readonly string[];
  /** Stops the provider, resolving once it has. */
  stop(): Promise<void>;
}

/** Pulumi's ResourceProvider client, the Structs of each resource's calls held as plain values; made on first use. */
let ProviderClient: ReturnType<typeof grpc.makeGenericClientConstructor> | undefined;
const clientAt = (address: string) =>
  new (ProviderClient ??= grpc.makeGenericClientConstructor(heldStructService(), "ResourceProvider"))(address, grpc.credentials.createInsecure()) as unknown as ResourceProviderClient;

/** The connection to a launched provider process, which stops with it. */
export function processConnection(launched: LaunchedPlugin): ProviderConnection {
  return { client: clientAt(`127.0.0.1:${launched.port}`), stderr: launched.stderr, gone: () => launched.child.exitCode !== null, stop: () => stopPlugin(launched.child) };
}

/** The connection to a provider served at an address: no process is started, and closing the host ends the server. */
export function servedConnection(served: ServedProvider): ProviderConnection {
  let stopped = false;
  return {
    client: clientAt(served.address),
    stderr: [],
    gone: () => stopped,
    stop: async () => {
      stopped = true;
      await served.close();
    },
  };
}

/**
 * Launches a provider process and connects to it; a launch failure is a ProviderError. It is tied to the engine (it
 * ends when the engine does, however it ends): by Node's arguments, or for a `command` (a launcher, run with the
 * arguments the Pulumi CLI gives) by NODE_OPTIONS, which reach the Node it starts.
 */
export async function connectProvider(name: string, args: string[], options: LaunchOptions): Promise<ProviderConnection> {
  try {
    return processConnection(options.command
      ? await launchPlugin(name, args, { ...options, env: { ...options.env, NODE_OPTIONS: [options.env["NODE_OPTIONS"] ?? "", ...tetherArgs()].join(" ").trim() } })
      : await launchPlugin(name, [...tetherArgs(), ...args], options));
  } catch (error) {
    throw new ProviderError((error as Error).message);
  }
}

/** The resource calls every provider process answers: check, diff, create, read, update, delete. */
export class ProviderHost implements ResourceCalls {
  readonly #name: string;
  readonly #connection: ProviderConnection;
  /** Whether secrets go to the provider as secret values (else revealed: the dynamic host expects plain values). */
  readonly #keepSecrets: boolean;

  protected constructor(name: string, connection: ProviderConnection, keepSecrets: boolean) {
    this.#name = name;
    this.#connection = connection;
    this.#keepSecrets = keepSecrets;
  }

  protected toStruct(m: PropertyMap) {
    return heldStruct(this.#keepSecrets ? m : revealedMap(m));
  }

  protected call<Res>(what: string, invoke: (client: ResourceProviderClient, cb: Callback<Res>) => unknown): Promise<Res> {
    return new Promise((resolve, reject) => {
      invoke(this.#connection.client, (err, res) => {
        if (err) reject(this.#translate(err, what));
        else resolve(res);
      });
    });
  }

  #translate(err: ServiceError, what: string): Error {
    const code = err.metadata?.get(FAILURE_CODE_KEY)[0]?.toString();
    const init = initFailure(err.metadata);
    if (init) return new ResourceInitFailedError(err.details || err.message, init.id, init.outputs, init.reasons, code);
    if (err.code === grpc.status.UNAVAILABLE && this.#connection.gone()) {
      return new ProviderError(`${what}: the ${this.#name} died:\n${this.#connection.stderr.slice(-10).join("\n")}`, { hostDied: true });
    }
    return new ProviderError(err.details || err.message, { code });
  }

  check(urn: string, olds: PropertyMap, news: PropertyMap): Promise<CheckResult> {
    return this.checkCall("check", urn, olds, news);
  }

  /** Check and CheckConfig take the same request and answer the same way. */
  protected async checkCall(method: "check" | "checkConfig", urn: string, olds: PropertyMap, news: PropertyMap): Promise<CheckResult> {
    const req = new providerProto.CheckRequest();
    req.setUrn(urn);
    req.setOlds(this.toStruct(olds));
    req.setNews(this.toStruct(news));
    const res = await this.call<CheckResponse>(method, (c, cb) => c[method](req, cb));
    return { inputs: fromStruct(res.getInputs()), failures: res.getFailuresList().map((f) => ({ property: f.getProperty(), reason: f.getReason() })) };
  }

  async diff(id: string, urn: string, oldOutputs: PropertyMap, news: PropertyMap, oldInputs: PropertyMap | undefined, ignoreChanges: string[]): Promise<DiffResult> {
    const req = new providerProto.DiffRequest();
    req.setId(id);
    req.setUrn(urn);
    req.setOlds(this.toStruct(oldOutputs));
    req.setNews(this.toStruct(news));
    if (oldInputs) req.setOldInputs(this.toStruct(oldInputs));
    req.setIgnorechangesList(ignoreChanges);
    const res = await this.call<DiffResponse>("diff", (c, cb) => c.diff(req, cb));
    const kinds = providerProto.DiffResponse.DiffChanges;
    const changes = res.getChanges() === kinds.DIFF_SOME ? "some" : res.getChanges() === kinds.DIFF_NONE ? "none" : "unknown";
    const result: DiffResult = { changes, replaces: res.getReplacesList(), deleteBeforeReplace: res.getDeletebeforereplace(), diffs: res.getDiffsList() };
    if (!res.getHasdetaileddiff()) return result;
    const detailed: Record<string, string> = {};
    res.getDetaileddiffMap().forEach((diff, path) => { detailed[path] = String(diffKindName(diff.getKind())); });
    return { ...result, detailed };
  }

  async create(urn: string, inputs: PropertyMap, options: WriteOptions = {}): Promise<{ id: string; outputs: PropertyMap }> {
    const req = new providerProto.CreateRequest();
    req.setUrn(urn);
    req.setProperties(this.toStruct(inputs));
    req.setTimeout(options.timeout ?? 0);
    req.setPreview(options.preview ?? false);
    const res = await this.call<CreateResponse>("create", (c, cb) => c.create(req, cb));
    return { id: res.getId(), outputs: fromStruct(res.getProperties()) };
  }

  async update(id: string, urn: string, oldOutputs: PropertyMap, news: PropertyMap, oldInputs: PropertyMap | undefined, options: WriteOptions = {}): Promise<PropertyMap> {
    const req = new providerProto.UpdateRequest();
    req.setId(id);
    req.setUrn(urn);
    req.setOlds(this.toStruct(oldOutputs));
    req.setNews(this.toStruct(news));
    if (oldInputs) req.setOldInputs(this.toStruct(oldInputs));
    req.setTimeout(options.timeout ?? 0);
    req.setPreview(options.preview ?? false);
    const res = await this.call<UpdateResponse>("update", (c, cb) => c.update(req, cb));
    return fromStruct(res.getProperties());
  }

  async read(id: string, urn: string, outputs?: PropertyMap, inputs?: PropertyMap): Promise<{ id: string; outputs: PropertyMap; inputs?: PropertyMap }> {
    const req = new providerProto.ReadRequest();
    req.setId(id);
    req.setUrn(urn);
    if (outputs) req.setProperties(this.toStruct(outputs));
    if (inputs) req.setInputs(this.toStruct(inputs));
    const res = await this.call<ReadResponse>("read", (c, cb) => c.read(req, cb));
    const newInputs = res.getInputs();
    return newInputs ? { id: res.getId(), outputs: fromStruct(res.getProperties()), inputs: fromStruct(newInputs) } : { id: res.getId(), outputs: fromStruct(res.getProperties()) };
  }

  async delete(id: string, urn: string, outputs: PropertyMap, oldInputs?: PropertyMap, options: Pick<WriteOptions, "timeout"> = {}): Promise<void> {
    const req = new providerProto.DeleteRequest();
    req.setId(id);
    req.setUrn(urn);
    req.setProperties(this.toStruct(outputs));
    if (oldInputs) req.setOldInputs(this.toStruct(oldInputs));
    req.setTimeout(options.timeout ?? 0);
    await this.call<Empty>("delete", (c, cb) => c.delete(req, cb));
  }

  /** Closes the channel and stops the host, resolving once it has exited. */
  async close(): Promise<void> {
    this.#connection.client.close();
    await this.#connection.stop();
  }
}

/** What the dynamic-provider host does with a step's timeout, which it cannot pass on: none (as under the CLI). */
type StepTimeout = EngineExtension["stepTimeout"];

/** The dynamic-provider host of @pulumi/pulumi, which serves the `pulumi-nodejs:dynamic/...` resources. */
export class DynamicProviderHost extends ProviderHost {
  readonly #stepTimeout: StepTimeout;

  protected constructor(name: string, connected: ProviderConnection, stepTimeout: StepTimeout) {
    super(name, connected, false);
    this.#stepTimeout = stepTimeout;
  }

  /**
   * Starts the host. `asCli`: as the Pulumi CLI starts `pulumi-resource-pulumi-nodejs`, through @pulumi/pulumi's
   * launcher script (which runs the `node` on PATH) with the engine's address as its only argument. `stepTimeout`:
   * how a create's or update's inputs carry the step's timeout, which no request of this host passes on.
   */
  static async start(options: ProviderHostOptions & { asCli?: boolean; stepTimeout?: StepTimeout }): Promise<DynamicProviderHost> {
    const name = "dynamic-provider host";
    if (options.asCli) {
      const launcher = resolvePulumiModule(options.cwd, "pulumi-resource-pulumi-nodejs");
      return new DynamicProviderHost(name, await connectProvider(name, [launcher, options.engineAddress], { ...options, command: "/bin/sh" }), options.stepTimeout);
    }
    const entry = resolvePulumiModule(options.cwd, "cmd/dynamic-provider/index.js");
    return new DynamicProviderHost(name, await connectProvider(name, [entry, options.engineAddress], options), options.stepTimeout);
  }

  async configure(config: Record<string, unknown>): Promise<void> {
    const req = new providerProto.ConfigureRequest();
    req.setArgs(structProto.Struct.fromJavaScript(config as JsStruct));
    for (const [key, value] of Object.entries(config)) req.getVariablesMap().set(key, typeof value === "string" ? value : JSON.stringify(value));
    req.setAcceptsecrets(true);
    req.setAcceptresources(false);
    await this.call<ConfigureResponse>("configure", (c, cb) => c.configure(req, cb));
  }

  // This host passes no request's timeout on to the provider: the inputs may carry it instead (for create and
  // update; a delete waits for nothing).
  override create(urn: string, inputs: PropertyMap, options: WriteOptions = {}) {
    return super.create(urn, this.#withTimeout(inputs, options), options);
  }

  override update(id: string, urn: string, oldOutputs: PropertyMap, news: PropertyMap, oldInputs: PropertyMap | undefined, options: WriteOptions = {}) {
    return super.update(id, urn, oldOutputs, this.#withTimeout(news, options), oldInputs, options);
  }

  #withTimeout(inputs: PropertyMap, { timeout }: WriteOptions): PropertyMap {
    return timeout && this.#stepTimeout ? this.#stepTimeout(inputs, timeout) : inputs;
  }
}

function initFailure(metadata: Metadata | undefined): { id: string; outputs: PropertyMap; reasons: string[] } | undefined {
  const raw = metadata?.get("grpc-status-details-bin")[0];
  if (!raw) return undefined;
  const status = statusProto.Status.deserializeBinary(typeof raw === "string" ? Buffer.from(raw, "base64") : raw);
  for (const any of status.getDetailsList()) {
    if (!any.getTypeName().endsWith("ErrorResourceInitFailed")) continue;
    const detail = providerProto.ErrorResourceInitFailed.deserializeBinary(any.getValue_asU8());
    return { id: detail.getId(), outputs: fromStruct(detail.getProperties()), reasons: detail.getReasonsList() };
  }
  return undefined;
}
