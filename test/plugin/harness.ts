// Drives the `audience` plugin through the engine's plugin host, as the engine does: call it over gRPC with Structs
// whose secrets are wrapped. The plugin's server runs in the test's process on a loopback port (servedPlugin);
// launch.test.ts starts the real `pulumi-resource-audience` process, for what only its launch shows.
import { fileURLToPath } from "node:url";
import { PluginHost, type Configured } from "../../provider/engine/plugin-host.ts";
import type { PluginServer } from "../../provider/engine/plugin-launch.ts";
import { engineLog } from "../../provider/plugin/engine-log.ts";
import { servePlugin } from "../../provider/plugin/server.ts";
import { ResourceInitFailedError } from "../../provider/engine/provider-host.ts";
import type { WriteOptions } from "../../provider/engine/resource-calls.ts";
import { SECRET_SIG, SIG_KEY, type PropertyMap } from "../../provider/protocol/values.ts";
import { emulatorControl, startEmulator, type EmulatorControl, type EmulatorOptions } from "pulumi-audience/emulator";
import { client, type Client } from "../emulator/helpers.ts";

export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

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
  readonly initFailed: { id: string; properties: Props; reasons: string[] } | undefined;
  constructor(error: Error) {
    super(error.message);
    this.initFailed = error instanceof ResourceInitFailedError ? { id: error.id, properties: error.outputs, reasons: error.reasons } : undefined;
  }
}

export interface DetailedDiff {
  changes: "none" | "some" | "unknown";
  replaces: string[];
  deleteBeforeReplace: boolean;
  diffs: string[];
  /** Property path -> ADD, UPDATE, DELETE, ADD_REPLACE, ... */
  detailed: Record<string, string>;
  hasDetailedDiff: boolean;
}

// Through JSON, as the engine never sends undefined members.
const plain = (value: Props) => JSON.parse(JSON.stringify(value)) as PropertyMap;

/**
 * The plugin served in this process, one server per start, as a process would be: what it would write to stderr
 * (its messages while no engine is known) goes to `print`.
 */
export function servedPlugin(print: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): PluginServer {
  return {
    name: "audience provider plugin (in process)",
    async serve({ env, engineAddress }) {
      const plugin = await servePlugin({ env, log: engineLog(print), ...(engineAddress ? { engineAddress } : {}) });
      return { address: `127.0.0.1:${plugin.port}`, close: plugin.close };
    },
  };
}

/** The engine's plugin host, called with a type and plain props as a test writes them; errors as PluginError. */
export class Plugin {
  readonly #host: PluginHost;
  readonly #printed: { text: string };

  private constructor(host: PluginHost, printed: { text: string }) {
    this.#host = host;
    this.#printed = printed;
  }

  /** Everything the plugin printed. */
  get output(): string {
    return this.#printed.text;
  }

  /** `engineAddress`: the engine's Log service, given to the plugin as its argument. */
  static async start(env: NodeJS.ProcessEnv = {}, engineAddress?: string): Promise<Plugin> {
    const printed = { text: "" };
    const host = await PluginHost.start({
      cwd: REPO_ROOT,
      launch: servedPlugin((line) => { printed.text += `${line}\n`; }),
      ...(engineAddress ? { engineAddress } : {}),
      // No credentials from the machine: each test configures its own.
      env: { ...process.env, AUDIENCE_API_KEY: "", AUDIENCE_BASE_URL: "", ...env },
    });
    return new Plugin(host, printed);
  }

  async #call<T>(make: (host: PluginHost) => Promise<T>): Promise<T> {
    try {
      return await make(this.#host);
    } catch (e) {
      throw new PluginError(e as Error);
    }
  }

  schema(): Promise<Props> {
    return this.#call((h) => h.schema());
  }

  version(): Promise<string> {
    return this.#call((h) => h.version());
  }

  /** Configure as the engine sends a default provider's stack config: `audience:config:<key>` variables. */
  configure(config: Props): Promise<Configured> {
    const variables = Object.fromEntries(Object.entries(config).map(([key, value]) => [`audience:config:${key}`, typeof value === "string" ? value : JSON.stringify(value)]));
    return this.#call((h) => h.configure({ variables }));
  }

  /** Configure as newer engines send an explicit provider's inputs: `args`, secrets wrapped. */
  async configureArgs(args: Props): Promise<void> {
    await this.#call((h) => h.configure({ args: plain(args) }));
  }

  checkConfig(news: Props): Promise<{ inputs: Props; failures: { property: string; reason: string }[] }> {
    return this.#call((h) => h.checkConfig(urnOf("pulumi:providers:audience", "default"), {}, plain(news)));
  }

  diffConfig(olds: Props, news: Props): Promise<{ changes: string; replaces: string[]; diffs: string[] }> {
    return this.#call((h) => h.diffConfig(urnOf("pulumi:providers:audience", "default"), plain(olds), plain(news)));
  }

  check(type: string, olds: Props, news: Props): Promise<{ inputs: Props; failures: { property: string; reason: string }[] }> {
    return this.#call((h) => h.check(urnOf(type), plain(olds), plain(news)));
  }

  async diff(type: string, id: string, olds: Props, news: Props): Promise<DetailedDiff> {
    const diff = await this.#call((h) => h.diff(id, urnOf(type), plain(olds), plain(news), undefined, []));
    return { changes: diff.changes, replaces: diff.replaces, deleteBeforeReplace: diff.deleteBeforeReplace, diffs: diff.diffs ?? [], detailed: diff.detailed ?? {}, hasDetailedDiff: diff.detailed !== undefined };
  }

  async create(type: string, properties: Props, options: WriteOptions = {}): Promise<{ id: string; properties: Props }> {
    const { id, outputs } = await this.#call((h) => h.create(urnOf(type), plain(properties), options));
    return { id, properties: outputs };
  }

  /** Read; with `state` and `inputs` left out, as `pulumi import` reads a resource by its id alone. */
  async read(type: string, id: string, state?: Props, inputs?: Props): Promise<{ id: string; properties: Props; inputs: Props }> {
    const found = await this.#call((h) => h.read(id, urnOf(type), state && plain(state), inputs && plain(inputs)));
    return { id: found.id, properties: found.outputs, inputs: found.inputs ?? {} };
  }

  update(type: string, id: string, olds: Props, news: Props, options: WriteOptions = {}): Promise<Props> {
    return this.#call((h) => h.update(id, urnOf(type), plain(olds), plain(news), undefined, options));
  }

  delete(type: string, id: string, properties: Props): Promise<void> {
    return this.#call((h) => h.delete(id, urnOf(type), plain(properties)));
  }

  invoke(token: string, args: Props): Promise<Props> {
    return this.#call((h) => h.invoke(token, plain(args)));
  }

  cancel(): Promise<void> {
    return this.#call((h) => h.cancel());
  }

  close(): Promise<void> {
    return this.#host.close();
  }
}

export interface World {
  emulator: { url: string; apiKey: string };
  /** Direct calls to the emulator's service, to set up and inspect. */
  api: Client;
  /** The emulator's control plane: faults, builds, the request log. */
  control: EmulatorControl;
  /** A plugin configured with the emulator's default account. */
  plugin: Plugin;
  close(): Promise<void>;
}

export async function startWorld(builds?: EmulatorOptions["builds"], engineAddress?: string): Promise<World> {
  const emulator = await startEmulator({ port: 0, ...(builds ? { builds } : {}) });
  const plugin = await Plugin.start({}, engineAddress);
  await plugin.configure({ apiKey: emulator.apiKey, baseUrl: `${emulator.url}/v1` });
  return {
    emulator,
    api: client(emulator.url, emulator.apiKey),
    control: emulatorControl(emulator.url),
    plugin,
    async close() {
      await plugin.close();
      await emulator.close();
    },
  };
}
