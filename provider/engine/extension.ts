// What a package adds to the generic engine, handed in by the program that runs it (the `audience` CLI), in the
// manner of pulumi-go-provider's optional capabilities: each member is optional, and without one the engine does
// what it does for any package. The engine names no package, input or output convention of its own.
import type { Severity } from "./monitor.ts";
import type { PluginLaunch } from "./plugin-launch.ts";
import type { ResourceCalls } from "./resource-calls.ts";
import type { PropertyMap } from "../protocol/values.ts";

/** What the engine gives a provider it runs in its own process. */
export interface InProcessContext {
  /** The provider config the dynamic-provider host's Configure would get (stack config, full keys). */
  config: Record<string, unknown>;
  /** The environment the host would run in. */
  env: NodeJS.ProcessEnv;
  /** A diagnostic for the user; `ephemeral`: a passing status, shown while its step runs. */
  log(severity: Severity, message: string, ephemeral?: boolean): void;
  /** The run's stop: it ends the provider's waits in flight, as a plugin's Cancel does. */
  signal?: AbortSignal;
}

/** Dynamic resources the engine serves in its own process instead of the dynamic-provider host. */
export interface InProcessDynamic {
  /** Whether the resource with these inputs or outputs is served in process (by its `__provider`). */
  serves(props: PropertyMap): boolean;
  /** The provider, made on first use. */
  start(context: InProcessContext): ResourceCalls;
}

export interface EngineExtension {
  /** The package whose provider plugin the engine runs: resources `<packageName>:...`, `pulumi:providers:<packageName>`. */
  packageName?: string;
  /** How to start that plugin for the program in `cwd`; the engine runs `packageName`'s resources only with it. */
  pluginLaunch?(cwd: string): PluginLaunch;
  /**
   * Where that plugin is downloaded from, as the program's language host reports the package to the Pulumi CLI
   * (package.json's `pulumi.server`): the default provider of a resource asking for no URL takes it, in its name too.
   */
  pluginDownloadURL?: string;
  /** The id of an existing resource these inputs take over instead of creating one: the plan shows an adopt. */
  adoptIdOf?(inputs: PropertyMap): string | undefined;
  /**
   * The inputs of a create that an earlier run began at `startedAt` (ms since the epoch) and left with its outcome
   * unknown, so the provider can look for what that attempt made: the inputs as they are for another package.
   * `lookOnly`: the provider only looks (for a destroy or a refresh), answering the resource found or failing with
   * NOTHING_MADE_CODE; without this member such creates stay pending.
   */
  decorateCreate?(type: string, inputs: PropertyMap, startedAt: number, options?: { lookOnly?: boolean }): PropertyMap;
  /** The inputs of a create or update carrying the step's timeout, for the dynamic-provider host, which passes none. */
  stepTimeout?(inputs: PropertyMap, seconds: number): PropertyMap;
  inProcess?: InProcessDynamic;
  /** A line a provider host printed, as a diagnostic; without this member every line is kept for debugging only. */
  onHostLog?(line: string): { severity: Severity; message: string };
}
