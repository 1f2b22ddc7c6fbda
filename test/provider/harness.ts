// Drives the provider with the calls shaped for lifecycle tests: in process, wired as the hosts wire it
// (provider/cli/extension.ts), or through the real Pulumi dynamic-provider host over gRPC with the engine's own
// client of it (provider/engine/provider-host.ts) where a test checks what only the process shows. Also a
// recording proxy to see request bodies.
import { execFile } from "node:child_process";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import type { EmulatorControl } from "pulumi-audience/emulator";
import { inProcessProvider } from "../../provider/cli/extension.ts";
import type { InProcessProvider } from "../../provider/engine/in-process-provider.ts";
import { DynamicProviderHost, ResourceInitFailedError } from "../../provider/engine/provider-host.ts";
import type { ResourceCalls } from "../../provider/engine/resource-calls.ts";
import type { PropertyMap } from "../../provider/protocol/values.ts";
import { providerModule } from "../../provider/runtime/resources/shim.ts";

export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
const NODE = process.execPath;

export type Props = Record<string, unknown>;

export interface CheckFailure {
  property: string;
  reason: string;
}

export interface DiffAnswer {
  changes: "none" | "some" | "unknown";
  replaces: string[];
  deleteBeforeReplace: boolean;
}

/** A failed call; `initFailed` is set when the host reported a resource kept in state with init errors. */
export class HostError extends Error {
  readonly initFailed: { id: string; properties: Props; reasons: string[] } | undefined;

  constructor(message: string, initFailed?: HostError["initFailed"]) {
    super(message);
    this.initFailed = initFailed;
  }
}

/** Runs a TypeScript file with plain Node (as a program runs, not through the test transformer); answers stdout. */
export function runNode(file: string, env: NodeJS.ProcessEnv = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(NODE, ["--conditions=source", file], { cwd: REPO_ROOT, env: { ...process.env, ...env } }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${file}: ${error.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

export interface ProviderHost {
  /** Everything the host process printed on stdout and stderr so far (empty in process). */
  logs(): string;
  /** The warnings the provider reported (in the host process, its `warning: ` lines). */
  warnings(): string[];
  configure(config: Props): Promise<void>;
  check(olds: Props, news: Props): Promise<{ inputs: Props; failures: CheckFailure[] }>;
  diff(id: string, olds: Props, news: Props): Promise<DiffAnswer>;
  create(properties: Props): Promise<{ id: string; properties: Props }>;
  read(id: string, properties: Props): Promise<{ id: string; properties: Props; inputs: Props }>;
  update(id: string, olds: Props, news: Props): Promise<{ properties: Props }>;
  delete(id: string, properties: Props): Promise<void>;
  close(): Promise<void>;
}

const URN = "urn:pulumi:test::audience::pulumi-nodejs:dynamic/audience:Test::test";

/** A call's failure as a HostError, keeping a kept resource's id, outputs and reasons. */
async function call<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ResourceInitFailedError) throw new HostError(error.message, { id: error.id, properties: error.outputs, reasons: error.reasons });
    throw new HostError(error instanceof Error ? error.message : String(error));
  }
}

const map = (props: Props) => props as PropertyMap;

/** The lifecycle calls of a host as tests make them; the host reads old state from `olds` only. */
function hostCalls(calls: () => ResourceCalls): Pick<ProviderHost, "check" | "diff" | "create" | "read" | "update" | "delete"> {
  return {
    check: (olds, news) => call(() => calls().check(URN, map(olds), map(news))),
    diff: (id, olds, news) => call(() => calls().diff(id, URN, map(olds), map(news), map(olds), [])),
    create: (properties) => call(async () => {
      const created = await calls().create(URN, map(properties));
      return { id: created.id, properties: created.outputs };
    }),
    read: (id, properties) => call(async () => {
      const read = await calls().read(id, URN, map(properties), map(properties));
      return { id: read.id, properties: read.outputs, inputs: read.inputs ?? {} };
    }),
    update: (id, olds, news) => call(async () => ({ properties: await calls().update(id, URN, map(olds), map(news), map(olds)) })),
    delete: (id, properties) => call(() => calls().delete(id, URN, map(properties), map(properties))),
  };
}

/**
 * The provider in this process, as the engine serves its own resources: the lifecycle wired by the hosts' one
 * wiring, configured as the host's Configure would (each configure starts from the environment again).
 */
export function startInProcessHost(options: { env?: NodeJS.ProcessEnv } = {}): ProviderHost {
  const env = { ...process.env, ...options.env };
  const warnings: string[] = [];
  const start = (config: Props): InProcessProvider => inProcessProvider({ config, env, report: (message) => warnings.push(message) });
  let provider = start({});
  return {
    logs: () => "",
    warnings: () => [...warnings],
    configure: async (config) => {
      provider = start(config);
    },
    ...hostCalls(() => provider),
    close: async () => undefined,
  };
}

/** The prefix of a warning the dynamic entry prints when its host reaches no engine. */
const WARNING_LINE = "warning: ";

/**
 * Starts the dynamic-provider host with our TypeScript sources resolvable (`--conditions=source`), in `cwd`
 * (where `pulumi-audience` must resolve, as it does for a program's folder).
 */
export async function startProviderHost(options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<ProviderHost> {
  let output = "";
  const host = await DynamicProviderHost.start({
    cwd: options.cwd ?? REPO_ROOT,
    env: { ...process.env, ...options.env, NODE_OPTIONS: "--conditions=source" },
    engineAddress: "127.0.0.1:1", // no engine: the provider only logs through it
    onOutput: (line) => { output += `${line}\n`; },
  });
  return {
    logs: () => output,
    warnings: () => output.split("\n").filter((line) => line.startsWith(WARNING_LINE)).map((line) => line.slice(WARNING_LINE.length)),
    configure: (config) => call(() => host.configure(config)),
    ...hostCalls(() => host),
    close: () => host.close(),
  };
}

export interface RecordedRequest {
  method: string;
  path: string;
  body: unknown;
}

/** An HTTP proxy in front of `target` that records each request's method, path and JSON body. */
export async function startRecordingProxy(target: string): Promise<{ url: string; requests: RecordedRequest[]; close(): Promise<void> }> {
  const requests: RecordedRequest[] = [];
  const upstream = new URL(target);
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks);
      let body: unknown;
      try {
        body = raw.length ? JSON.parse(raw.toString()) : undefined;
      } catch {
        body = raw.toString();
      }
      requests.push({ method: req.method ?? "", path: (req.url ?? "").replace(/^\/v1/, "").split("?")[0] ?? "", body });
      const forward = httpRequest({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      forward.on("error", () => res.destroy());
      forward.end(raw);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

export interface World {
  emulator: { url: string; apiKey: string };
  proxy: { url: string; requests: RecordedRequest[] };
  host: ProviderHost;
  /** The serialized `__provider` shim of a family. */
  shim: (collection: string) => string;
  /** Program inputs of a family: the resource's members plus what the resource class adds. */
  inputs(collection: string, props: Props): Props;
  /** The emulator's request log (service calls only), optionally since a sequence number. */
  serviceCalls(since?: number): Promise<{ seq: number; method: string; path: string }[]>;
  /** The last sequence number of the emulator's request log. */
  mark(): Promise<number>;
  /** A direct call to the emulator's service (setting up data, inspecting state). */
  api(method: string, path: string, body?: unknown): Promise<unknown>;
  /** The emulator's control plane: faults, builds, the request log. */
  control: EmulatorControl;
  close(): Promise<void>;
}

/** One emulator, one recording proxy and one provider (in process unless `host` is "process"), configured with the emulator's key. */
export async function startWorld(options: {
  /** Where the provider runs: in this process, or in a real dynamic-provider host process. */
  host?: "in-process" | "process";
  builds?: Record<string, "immediate" | "manual" | number>;
  /** More stack config, computed once the emulator runs (e.g. `audience:accounts` of accounts made on it). */
  config?: (emulator: { url: string; proxyUrl: string; apiKey: string }) => Promise<Props>;
} = {}): Promise<World> {
  const { emulatorControl, startEmulator } = await import("pulumi-audience/emulator");
  const emulator = await startEmulator({ port: 0, ...(options.builds ? { builds: options.builds } : {}) });
  const proxy = await startRecordingProxy(emulator.url);
  const host = options.host === "process" ? await startProviderHost() : startInProcessHost();
  const extra = options.config ? await options.config({ url: emulator.url, proxyUrl: proxy.url, apiKey: emulator.apiKey }) : {};
  await host.configure({ "audience:apiKey": emulator.apiKey, "audience:baseUrl": proxy.url, ...extra });
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${emulator.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${emulator.apiKey}`, ...(body !== undefined ? { "content-type": method === "PATCH" ? "application/merge-patch+json" : "application/json" } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
  const control = emulatorControl(emulator.url);
  const serviceCalls = (since = 0) => control.requests(`?since=${since}`);
  return {
    emulator,
    proxy,
    host,
    shim: providerModule,
    inputs: (collection, props) => ({ ...props, __provider: providerModule(collection) }),
    serviceCalls,
    async mark() {
      return (await control.requests()).at(-1)?.seq ?? 0;
    },
    api,
    control,
    async close() {
      await host.close();
      await proxy.close();
      await emulator.close();
    },
  };
}
