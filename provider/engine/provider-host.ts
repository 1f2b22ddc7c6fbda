// The real dynamic-provider host of @pulumi/pulumi, spawned and spoken to over gRPC as Pulumi's engine does.
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import type { Metadata, ServiceError } from "@grpc/grpc-js";
import type { ResourceProviderClient } from "@pulumi/pulumi/proto/provider_grpc_pb.js";
import type { CheckResponse, ConfigureResponse, CreateResponse, DiffResponse, ReadResponse, UpdateResponse } from "@pulumi/pulumi/proto/provider_pb.js";
import type { Empty } from "google-protobuf/google/protobuf/empty_pb.js";
import { grpc, providerProto, providerRpc, resolvePulumiModule, statusProto, structProto } from "./proto.ts";
import { revealedMap, type PropertyMap } from "./values.ts";

export interface CheckResult {
  inputs: PropertyMap;
  failures: { property: string; reason: string }[];
}

export interface DiffResult {
  changes: "some" | "none" | "unknown";
  replaces: string[];
  deleteBeforeReplace: boolean;
}

/**
 * The host's ErrorResourceInitFailed: a create or update that reached the service but did not finish, so the
 * resource exists (with this id and these outputs) and must be kept.
 */
export class ResourceInitFailedError extends Error {
  override name = "ResourceInitFailedError";
  readonly id: string;
  readonly outputs: PropertyMap;
  readonly reasons: string[];
  constructor(message: string, id: string, outputs: PropertyMap, reasons: string[]) {
    super(message);
    this.id = id;
    this.outputs = outputs;
    this.reasons = reasons;
  }
}

export class ProviderError extends Error {
  override name = "ProviderError";
}

type Callback<Res> = (err: ServiceError | null, res: Res) => void;

function toStruct(m: PropertyMap) {
  return structProto.Struct.fromJavaScript(revealedMap(m) as Record<string, import("google-protobuf/google/protobuf/struct_pb.js").JavaScriptValue>);
}

function fromStruct(s: { toJavaScript(): Record<string, unknown> } | undefined): PropertyMap {
  return (s?.toJavaScript() ?? {}) as PropertyMap;
}

export interface ProviderHostOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  engineAddress: string;
  /** Output the provider code prints (console.log / console.error), a line at a time. */
  onOutput?: (line: string) => void;
}

const hosts = new Set<ChildProcess>();
// A provider host must not outlive the engine that started it.
process.once("exit", () => {
  for (const child of hosts) child.kill("SIGKILL");
});

export class DynamicProviderHost {
  readonly #child: ChildProcess;
  readonly #client: ResourceProviderClient;
  readonly #stderr: string[];

  private constructor(child: ChildProcess, client: ResourceProviderClient, stderr: string[]) {
    this.#child = child;
    this.#client = client;
    this.#stderr = stderr;
  }

  static async start(options: ProviderHostOptions): Promise<DynamicProviderHost> {
    const entry = resolvePulumiModule(options.cwd, "cmd/dynamic-provider/index.js");
    const child = spawn(process.execPath, [entry, options.engineAddress], { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
    hosts.add(child);
    child.once("exit", () => hosts.delete(child));
    const stderr: string[] = [];
    createInterface({ input: child.stderr! }).on("line", (line) => {
      stderr.push(line);
      if (stderr.length > 50) stderr.shift();
      options.onOutput?.(line);
    });
    const lines = createInterface({ input: child.stdout! });
    const port = await new Promise<string>((resolve, reject) => {
      let first = true;
      lines.on("line", (line) => {
        if (first) {
          first = false;
          resolve(line.trim());
        } else options.onOutput?.(line);
      });
      child.once("error", reject);
      child.once("exit", (code) => reject(new ProviderError(`the dynamic-provider host exited (code ${code}) before listening:\n${stderr.join("\n")}`)));
    });
    if (!/^\d+$/.test(port)) {
      child.kill();
      throw new ProviderError(`the dynamic-provider host printed "${port}" instead of its port`);
    }
    const client = new providerRpc.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as unknown as ResourceProviderClient;
    return new DynamicProviderHost(child, client, stderr);
  }

  #call<Res>(what: string, invoke: (client: ResourceProviderClient, cb: Callback<Res>) => unknown): Promise<Res> {
    return new Promise((resolve, reject) => {
      invoke(this.#client, (err, res) => {
        if (err) reject(this.#translate(err, what));
        else resolve(res);
      });
    });
  }

  #translate(err: ServiceError, what: string): Error {
    const init = initFailure(err.metadata);
    if (init) return new ResourceInitFailedError(err.details || err.message, init.id, init.outputs, init.reasons);
    if (err.code === grpc.status.UNAVAILABLE && this.#child.exitCode !== null) {
      return new ProviderError(`${what}: the dynamic-provider host died:\n${this.#stderr.slice(-10).join("\n")}`);
    }
    return new ProviderError(err.details || err.message);
  }

  async configure(config: Record<string, unknown>): Promise<void> {
    const req = new providerProto.ConfigureRequest();
    req.setArgs(structProto.Struct.fromJavaScript(config as Record<string, import("google-protobuf/google/protobuf/struct_pb.js").JavaScriptValue>));
    for (const [key, value] of Object.entries(config)) req.getVariablesMap().set(key, typeof value === "string" ? value : JSON.stringify(value));
    req.setAcceptsecrets(true);
    req.setAcceptresources(false);
    await this.#call<ConfigureResponse>("configure", (c, cb) => c.configure(req, cb));
  }

  async check(urn: string, olds: PropertyMap, news: PropertyMap): Promise<CheckResult> {
    const req = new providerProto.CheckRequest();
    req.setUrn(urn);
    req.setOlds(toStruct(olds));
    req.setNews(toStruct(news));
    const res = await this.#call<CheckResponse>("check", (c, cb) => c.check(req, cb));
    return { inputs: fromStruct(res.getInputs()), failures: res.getFailuresList().map((f) => ({ property: f.getProperty(), reason: f.getReason() })) };
  }

  async diff(id: string, urn: string, oldOutputs: PropertyMap, news: PropertyMap, oldInputs: PropertyMap, ignoreChanges: string[]): Promise<DiffResult> {
    const req = new providerProto.DiffRequest();
    req.setId(id);
    req.setUrn(urn);
    req.setOlds(toStruct(oldOutputs));
    req.setNews(toStruct(news));
    req.setOldInputs(toStruct(oldInputs));
    req.setIgnorechangesList(ignoreChanges);
    const res = await this.#call<DiffResponse>("diff", (c, cb) => c.diff(req, cb));
    const kinds = providerProto.DiffResponse.DiffChanges;
    const changes = res.getChanges() === kinds.DIFF_SOME ? "some" : res.getChanges() === kinds.DIFF_NONE ? "none" : "unknown";
    return { changes, replaces: res.getReplacesList(), deleteBeforeReplace: res.getDeletebeforereplace() };
  }

  async create(urn: string, inputs: PropertyMap): Promise<{ id: string; outputs: PropertyMap }> {
    const req = new providerProto.CreateRequest();
    req.setUrn(urn);
    req.setProperties(toStruct(inputs));
    const res = await this.#call<CreateResponse>("create", (c, cb) => c.create(req, cb));
    return { id: res.getId(), outputs: fromStruct(res.getProperties()) };
  }

  async update(id: string, urn: string, oldOutputs: PropertyMap, news: PropertyMap, oldInputs: PropertyMap): Promise<PropertyMap> {
    const req = new providerProto.UpdateRequest();
    req.setId(id);
    req.setUrn(urn);
    req.setOlds(toStruct(oldOutputs));
    req.setNews(toStruct(news));
    req.setOldInputs(toStruct(oldInputs));
    const res = await this.#call<UpdateResponse>("update", (c, cb) => c.update(req, cb));
    return fromStruct(res.getProperties());
  }

  /** Reads the live resource; a missing id in the answer means it no longer exists. */
  async read(id: string, urn: string, outputs: PropertyMap, inputs: PropertyMap): Promise<{ id: string; outputs: PropertyMap; inputs?: PropertyMap }> {
    const req = new providerProto.ReadRequest();
    req.setId(id);
    req.setUrn(urn);
    req.setProperties(toStruct(outputs));
    req.setInputs(toStruct(inputs));
    const res = await this.#call<ReadResponse>("read", (c, cb) => c.read(req, cb));
    const newInputs = res.getInputs();
    return newInputs ? { id: res.getId(), outputs: fromStruct(res.getProperties()), inputs: fromStruct(newInputs) } : { id: res.getId(), outputs: fromStruct(res.getProperties()) };
  }

  async delete(id: string, urn: string, outputs: PropertyMap, oldInputs: PropertyMap): Promise<void> {
    const req = new providerProto.DeleteRequest();
    req.setId(id);
    req.setUrn(urn);
    req.setProperties(toStruct(outputs));
    req.setOldInputs(toStruct(oldInputs));
    await this.#call<Empty>("delete", (c, cb) => c.delete(req, cb));
  }

  /** Closes the channel and stops the host, resolving once it has exited. */
  async close(): Promise<void> {
    this.#client.close();
    if (this.#child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.#child.once("exit", resolve));
    this.#child.kill();
    await exited;
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
