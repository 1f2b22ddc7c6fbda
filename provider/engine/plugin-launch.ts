// How a package's provider plugin is started: what the extension hands the engine and the plugin host starts.
// A ground floor of the engine: it names no host.

/**
 * How to start a package's provider plugin: a Node entry with its arguments (run with the engine's tether), or a
 * `command` (an executable, as the Pulumi CLI runs `pulumi-resource-<package>`). The engine's address is appended.
 */
export interface PluginProcess {
  /** What the plugin is called in messages. */
  name: string;
  args: string[];
  command?: string;
}

/** A provider already listening at `address`, served by whoever made it (a test, in its own process). */
export interface ServedProvider {
  address: string;
  close(): Promise<void>;
}

/** A plugin served without a process (by a test, in its own): `serve` starts one listening, for one provider. */
export interface PluginServer {
  name: string;
  serve(options: { env: NodeJS.ProcessEnv; engineAddress?: string }): Promise<ServedProvider>;
}

export type PluginLaunch = PluginProcess | PluginServer;
