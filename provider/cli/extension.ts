// What this package adds to the generic engine (provider/engine/extension.ts): its plugin's package, adoption by
// `adoptId`, a resumed create's start and a step's timeout as the inputs the lifecycle reads, its own dynamic
// resources served in process, and its provider's warnings. In the CLI-faithful mode it sends no hint the Pulumi CLI
// does not send.
import { createReadStream, existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { EngineExtension } from "../engine/extension.ts";
import type { PluginLaunch } from "../engine/plugin-launch.ts";
import { InProcessProvider } from "../engine/in-process-provider.ts";
import type { PropertyMap } from "../protocol/values.ts";
import { CREATE_LOOK_ONLY_KEY, CREATE_STARTED_KEY, STEP_TIMEOUT_KEY, type Controls } from "../runtime/lifecycle/controls.ts";
import { PACKAGE } from "../runtime/markers.ts";
import { PROVIDER_KEY } from "../protocol/markers.ts";
import { PLUGIN_DOWNLOAD_URL } from "../plugin/manifest.ts";
import { EARLIER_PROVIDER_MODULES, familyNamed, isPackageShim, SHIM_BODY } from "../runtime/resources/shim.ts";

/** The input by which a resource takes over an existing one instead of creating it. */
const ADOPT_KEY: keyof Controls = "adoptId";

/** How the dynamic entry marks a warning on its output when its host reaches no engine (see the runtime's index). */
const WARNING_PREFIX = "warning: ";

/** Whether a resource's properties name this package's shim (of this version or an earlier one) as their provider. */
export function servedInProcess(props: PropertyMap): boolean {
  return isPackageShim(props[PROVIDER_KEY]);
}

/** Whether a run is CLI-faithful: as `faithful` says, else when AUDIENCE_FAITHFUL=1 (or true) is in the environment. */
export function faithfulRun(faithful: boolean | undefined, env: NodeJS.ProcessEnv = process.env): boolean {
  return faithful ?? /^(1|true)$/i.test(env["AUDIENCE_FAITHFUL"] ?? "");
}

/** This package's resources: dynamic ones name their family (by marker or shim), native ones have the plugin's types. */
function ours(type: string, inputs: PropertyMap): boolean {
  return familyNamed(inputs) !== undefined || type.startsWith(`${PACKAGE}:`);
}

type LifecycleModules = Promise<[typeof import("../runtime/lifecycle/hosted.ts"), typeof import("../runtime/lifecycle/settings.ts")]>;
let lifecycleModules: LifecycleModules | undefined;

/** Loads the in-process provider's modules (lifecycle, contract, client) once: a head start and the provider share it. */
export function loadInProcessModules(): LifecycleModules {
  return (lifecycleModules ??= Promise.all([import("../runtime/lifecycle/hosted.ts"), import("../runtime/lifecycle/settings.ts")]));
}

/**
 * The shim texts as a state file spells them (JSON strings, without their opening quote, which a family's shim has
 * before its first line): a resource carrying one is served in process.
 */
const SHIMS_IN_STATE = [SHIM_BODY, ...EARLIER_PROVIDER_MODULES].map((text) => JSON.stringify(text).slice(1));

/** Whether the state file at `path` holds a resource served in process: read until one is found. */
export async function stateServedInProcess(path: string): Promise<boolean> {
  const overlap = Math.max(...SHIMS_IN_STATE.map((text) => text.length));
  let tail = "";
  try {
    for await (const chunk of createReadStream(path, { encoding: "utf8", highWaterMark: 1 << 20 })) {
      const text = tail + (chunk as string);
      if (SHIMS_IN_STATE.some((shim) => text.includes(shim))) return true;
      tail = text.slice(-overlap);
    }
  } catch {
    // No state (or none readable): the run says so.
  }
  return false;
}

/**
 * The lifecycle the dynamic-provider host would load, in this process, configured as the host's Configure would.
 * It is loaded (contract, client) in the background: commands that serve no resource never pay for it.
 */
export function inProcessProvider(options: { config: Record<string, unknown>; env: NodeJS.ProcessEnv; report?: (message: string) => void; progress?: (message: string) => void; signal?: AbortSignal }): InProcessProvider {
  const provider = (async () => {
    const [{ hostedLifecycle }, { readSettings }] = await loadInProcessModules();
    return hostedLifecycle({
      settings: readSettings((key) => options.config[key], options.env),
      checkAccounts: true,
      ...(options.report ? { report: options.report } : {}),
      ...(options.progress ? { progress: options.progress } : {}),
    }).lifecycle;
  })();
  return new InProcessProvider({ provider, ...(options.signal ? { signal: options.signal } : {}) });
}

const PLUGIN_NAME = `${PACKAGE} provider plugin`;

/** This package's plugin, from its entry next to this module: the TypeScript source in a checkout, compiled in a build. */
export function ownPlugin(): PluginLaunch {
  const source = fileURLToPath(new URL("../plugin/main.ts", import.meta.url));
  const args = existsSync(source) ? ["--conditions=source", source] : [fileURLToPath(new URL("../plugin/main.js", import.meta.url))];
  return { name: PLUGIN_NAME, args };
}

/** As the Pulumi CLI starts a resource plugin: the `pulumi-resource-audience` executable installed for the program. */
function installedPlugin(cwd: string): PluginLaunch {
  const command = createRequire(join(cwd, "package.json")).resolve("pulumi-audience/package.json").replace(/package\.json$/, `bin/pulumi-resource-${PACKAGE}.js`);
  return { name: PLUGIN_NAME, args: [], command };
}

export function audienceExtension({ faithful }: { faithful: boolean }): EngineExtension {
  const base: EngineExtension = {
    packageName: PACKAGE,
    pluginLaunch: faithful ? installedPlugin : ownPlugin,
    ...(PLUGIN_DOWNLOAD_URL ? { pluginDownloadURL: PLUGIN_DOWNLOAD_URL } : {}),
    adoptIdOf(inputs) {
      const id = inputs[ADOPT_KEY];
      return typeof id === "string" && id !== "" ? id : undefined;
    },
    // Under the CLI, a host prints what it reaches no engine with; a warning line is the user's to read.
    onHostLog: (line) => (line.startsWith(WARNING_PREFIX) ? { severity: "warning", message: line.slice(WARNING_PREFIX.length) } : { severity: "debug", message: line }),
  };
  if (faithful) return base;
  return {
    ...base,
    decorateCreate: (type, inputs, startedAt, options) => (ours(type, inputs) ? { ...inputs, [CREATE_STARTED_KEY]: startedAt, ...(options?.lookOnly ? { [CREATE_LOOK_ONLY_KEY]: true } : {}) } : inputs),
    stepTimeout: (inputs, seconds) => (familyNamed(inputs) !== undefined ? { ...inputs, [STEP_TIMEOUT_KEY]: seconds } : inputs),
    inProcess: {
      serves: servedInProcess,
      start: ({ config, env, log, signal }) => inProcessProvider({
        config,
        env,
        report: (message) => log("warning", message),
        progress: (message) => log("info", message, true),
        ...(signal ? { signal } : {}),
      }),
    },
  };
}
