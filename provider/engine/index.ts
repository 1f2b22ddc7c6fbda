// The local engine: runs a Pulumi program (preview, up, refresh, destroy) the way `pulumi` does, without its CLI.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { nodeProblem } from "pulumi-audience/node-version";
import type { Controls } from "../runtime/lifecycle/controls.ts";
import { Deployment, type Operation } from "./deployment.ts";
import type { EngineEvent, StepEvent } from "./events.ts";
import { childNodeOptions, runLanguageRuntime } from "./language.ts";
import { startMonitor } from "./monitor.ts";
import { checkStackName, loadProject, loadStackConfig, ProjectError, programConfigEnv, providerConfig, setConfigArg, type Project, type StackConfig } from "./project.ts";
import { PluginHost } from "./plugin-host.ts";
import { DynamicProviders, InProcessProvider, servedInProcess } from "./in-process-provider.ts";
import { DynamicProviderHost } from "./provider-host.ts";
import { providerTypeOf, ProviderHosts } from "./providers.ts";
import { lockStack, Snapshot } from "./snapshot.ts";
import { DEFAULT_STACK, resolvePassphrase, stackStatePath } from "./stack-files.ts";
import type { StepOp } from "./steps.ts";
import { PROVIDER_TYPE as DYNAMIC_PROVIDER_TYPE, STACK_TYPE, urnType } from "./urn.ts";
import { isSecret, revealed, type PropertyMap, type Value } from "../plugin/values.ts";

export type { Operation } from "./deployment.ts";
export type { DiagnosticEvent, EngineEvent, StepEvent } from "./events.ts";
export type { LeafChange } from "./changes.ts";
export type { StepOp } from "./steps.ts";
export { PassphraseCrypter, PassphraseError } from "./secrets.ts";
export { DEFAULT_STACK, resolvePassphrase, stackStatePath } from "./stack-files.ts";
export { ProjectError } from "./project.ts";
export { Snapshot, StateError } from "./snapshot.ts";

export interface RunOptions {
  /** The program's directory (holds Pulumi.yaml). */
  cwd: string;
  operation: Operation;
  /** Stack name; default "dev". */
  stack?: string;
  /** Extra config, as `--config key=value` (keys without a namespace belong to the project). */
  config?: Record<string, string>;
  /** Extra secret config, as `--secret key=value`. */
  secrets?: Record<string, string>;
  /** Encrypts the state's secrets; default PULUMI_CONFIG_PASSPHRASE, then PULUMI_CONFIG_PASSPHRASE_FILE. */
  passphrase?: string;
  /** Environment added for the program and the provider (e.g. AUDIENCE_BASE_URL). */
  env?: Record<string, string>;
  /** Where `<stack>.json` lives; default `<cwd>/.audience/state`. */
  stateDir?: string;
  /** Resource operations in flight at once; default 8. */
  parallel?: number;
  /** Progress: every step as it starts and ends, and the program's diagnostics. */
  onEvent?: (event: EngineEvent) => void;
  /**
   * Stops the run when aborted (the CLI aborts on SIGINT and SIGTERM): no new step starts, steps in flight finish
   * (or stay pending), the program and the provider host are stopped, the state is written and the lock released.
   */
  signal?: AbortSignal;
  /**
   * CLI-faithful mode: take no shortcut the Pulumi CLI does not take. Dynamic resources go to @pulumi/pulumi's
   * dynamic-provider host started through its launcher (which loads the `pulumi-audience/provider` installed for
   * the program), the plugin is the program's installed `pulumi-resource-audience`, both with the CLI's arguments
   * and environment; no hint the CLI does not send; pending operations handled as the CLI handles them. Default:
   * AUDIENCE_FAITHFUL=1 in the environment.
   */
  faithful?: boolean;
}

export interface RunResult {
  operation: Operation;
  project: string;
  stack: string;
  ok: boolean;
  /** What went wrong, when ok is false. */
  error?: string;
  /** Finished steps by kind, e.g. { create: 3, same: 1 }. */
  changes: Partial<Record<StepOp, number>>;
  /** Steps that failed, and steps not run because a resource they depend on failed. */
  failed: number;
  skipped: number;
  steps: StepEvent[];
  /** Stack outputs with secrets revealed; secretOutputs names the secret ones. */
  outputs: Record<string, unknown>;
  secretOutputs: string[];
  diagnostics: { severity: string; message: string; urn?: string }[];
  durationMs: number;
  statePath: string;
}

/** How the provider's output marks a warning for the user (see the runtime's `report`). */
const WARNING_PREFIX = "warning: ";

/** The input by which a resource takes over an existing one instead of creating it (audience's `adoptId`). */
const ADOPT_KEY: keyof Controls = "adoptId";

function adoptedId(inputs: PropertyMap): string | undefined {
  const id = inputs[ADOPT_KEY];
  return typeof id === "string" && id !== "" ? id : undefined;
}

export async function runProgram(options: RunOptions): Promise<RunResult> {
  // The language runtime runs the program on this Node, whose type stripping its `.ts` files need: before anything
  // starts, name the Node to get rather than fail on "Unknown file extension".
  const tooOld = nodeProblem(process.versions.node);
  if (tooOld) throw new ProjectError(tooOld);
  const started = Date.now();
  const project = loadProject(options.cwd);
  const stack = checkStackName(options.stack ?? DEFAULT_STACK);
  const parallel = options.parallel ?? 8;
  if (!Number.isInteger(parallel) || parallel < 1) throw new ProjectError(`parallel: expected a whole number >= 1 (got ${parallel})`);
  const passphrase = resolvePassphrase(options.passphrase);
  const { config, encryptionSalt } = await loadStackConfig(project, stack, passphrase);
  for (const [k, v] of Object.entries(options.config ?? {})) setConfigArg(config, project.name, `${k}=${v}`, false);
  for (const [k, v] of Object.entries(options.secrets ?? {})) setConfigArg(config, project.name, `${k}=${v}`, true);
  const statePath = stackStatePath(project.dir, stack, options.stateDir);
  const dryRun = options.operation === "preview";
  const unlock = dryRun ? async () => undefined : await lockStack(statePath);
  try {
    return await deploy(options, { project, stack, parallel, passphrase, config, encryptionSalt, statePath, dryRun, started });
  } finally {
    await unlock();
  }
}

interface Prepared {
  project: Project;
  stack: string;
  parallel: number;
  passphrase: string;
  config: StackConfig;
  encryptionSalt: string | undefined;
  statePath: string;
  dryRun: boolean;
  started: number;
}

async function deploy(options: RunOptions, { project, stack, parallel, passphrase, config, encryptionSalt, statePath, dryRun, started }: Prepared): Promise<RunResult> {
  const snapshot = await Snapshot.load(statePath, passphrase, encryptionSalt);
  // After a failed step the program gets a moment to report and exit; then it is stopped, as Pulumi cancels it.
  const stopProgram = new AbortController();
  let stopTimer: NodeJS.Timeout | undefined;
  const stopNow = () => stopProgram.abort();
  if (options.signal?.aborted) stopNow();
  options.signal?.addEventListener("abort", stopNow, { once: true });
  const emit = (event: EngineEvent) => {
    if (event.kind === "step" && event.phase === "failed") stopTimer ??= setTimeout(() => stopProgram.abort(), 10_000).unref();
    options.onEvent?.(event);
  };

  const baseEnv: NodeJS.ProcessEnv = { ...process.env, ...options.env };
  const faithful = options.faithful ?? /^(1|true)$/i.test(baseEnv["AUDIENCE_FAITHFUL"] ?? "");
  const childEnv: NodeJS.ProcessEnv = {
    ...baseEnv,
    // The CLI hands the program the user's NODE_OPTIONS; this engine adds the `source` condition it runs with.
    NODE_OPTIONS: faithful ? (baseEnv["NODE_OPTIONS"] ?? "") : childNodeOptions(baseEnv),
    PULUMI_NODEJS_ORGANIZATION: "organization",
    PULUMI_NODEJS_PROJECT: project.name,
    PULUMI_NODEJS_STACK: stack,
  };
  // As the Pulumi CLI starts a provider plugin (pkg/resource/plugin/provider_plugin.go): its own environment, plus
  // the project's name and the stack's config as JSON; the Node host also gets the project's runtime options.
  const cliPluginEnv: NodeJS.ProcessEnv = { ...baseEnv, PULUMI_PROJECT: project.name, PULUMI_CONFIG: programConfigEnv(config)["PULUMI_CONFIG"] };
  const cliHostEnv: NodeJS.ProcessEnv = {
    ...cliPluginEnv,
    PULUMI_NODEJS_PROJECT: project.name,
    PULUMI_RUNTIME_TYPESCRIPT: String(project.typescript),
    ...(project.nodeArgs.length > 0 ? { PULUMI_RUNTIME_NODEARGS: project.nodeArgs.join(" ") } : {}),
  };
  let host: Promise<DynamicProviderHost> | undefined;
  let monitorAddress = "";
  const dynamicHost = () =>
    (host ??= DynamicProviderHost.start({
      cwd: project.dir,
      asCli: faithful,
      // The provider's logs (a build's status) reach this engine's Log service, as the program's do.
      env: faithful ? cliHostEnv : { ...childEnv, PULUMI_NODEJS_ENGINE: monitorAddress },
      engineAddress: monitorAddress,
      // The provider's warnings (a lost create resolved, ...) are the user's to read; the rest is for debugging.
      onOutput: (line) => (line.startsWith(WARNING_PREFIX) ? deployment.log("warning", line.slice(WARNING_PREFIX.length), "") : deployment.log("debug", line, "")),
    }).then(async (h) => {
      await h.configure(providerConfig(config));
      return h;
    }));
  const stackOutputs = async (name: string): Promise<PropertyMap> => {
    // "org/project/stack" or "stack": stacks of this project live next to this one.
    const other = checkStackName(name.split("/").pop() ?? name);
    const path = join(dirname(statePath), `${other}.json`);
    if (!existsSync(path)) throw new Error(`StackReference ${name}: no stack "${other}" in ${dirname(statePath)}`);
    const loaded = await Snapshot.load(path, passphrase);
    return loaded.resources.find((r) => urnType(r.urn) === STACK_TYPE)?.outputs ?? {};
  };
  let own: InProcessProvider | undefined;
  const inProcess = () =>
    (own ??= new InProcessProvider({
      config: providerConfig(config),
      env: childEnv,
      report: (message) => deployment.log("warning", message, ""),
      progress: (message) => deployment.log("info", message, "", true),
      ...(options.signal ? { signal: options.signal } : {}),
    }));
  // Faithful: every dynamic resource through the host, as under the CLI; else this package's in the engine's process.
  const dynamic = faithful ? undefined : new DynamicProviders(inProcess, dynamicHost);
  const hosts = new ProviderHosts({
    dynamic: async () => dynamic ?? dynamicHost(),
    // The plugin's warnings and progress come through the monitor's Log service, as the program's do.
    plugin: () => PluginHost.start({
      cwd: project.dir,
      env: faithful ? cliPluginEnv : childEnv,
      engineAddress: monitorAddress,
      onOutput: (line) => deployment.log("debug", line, ""),
      ...(faithful ? { asCli: { engineAddress: monitorAddress } } : {}),
    }),
    stackConfig: providerConfig(config),
    providerInputs: (urn) => deployment.providerInputs(urn),
  });
  // Stopped, the plugins end their waits in flight, so the steps they serve finish at once (kept, as failed).
  const cancelPlugins = () => void hosts.cancel();
  options.signal?.addEventListener("abort", cancelPlugins, { once: true });
  const provider = (type: string, ref: string | undefined) => hosts.host(type, ref);
  const call = (token: string, args: PropertyMap, ref: string | undefined) => hosts.invoke(token, args, ref);
  const configChecker = (providerType: string) => hosts.configChecker(providerType);
  const checkDefaultProvider = (providerType: string, urn: string) => hosts.checkDefault(providerType, urn);
  const deployment: Deployment = new Deployment({
    project: project.name, stack, snapshot, dryRun, parallel, emit, provider, configChecker, checkDefaultProvider, call, stackOutputs, adoptedId,
    asCli: faithful,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  await deployment.reportInterrupted();

  const monitor = await startMonitor(deployment, project.dir);
  monitorAddress = monitor.address;
  // Both processes take a while to load @pulumi/pulumi: when the state holds dynamic resources of other providers,
  // start the host while the program boots. This package's own resources need no host.
  if (snapshot.resources.some((r) => r.custom && r.id && providerTypeOf(r.type) === DYNAMIC_PROVIDER_TYPE && (faithful || !servedInProcess(r.outputs)))) dynamicHost().catch(() => undefined);
  let error: string | undefined;
  try {
    if (options.operation === "preview" || options.operation === "up") {
      const code = await runLanguageRuntime({
        project,
        stack,
        monitorAddress,
        dryRun,
        parallel,
        env: { ...childEnv, ...programConfigEnv(config) },
        onOutput: (line) => deployment.log("info", line, ""),
        signal: stopProgram.signal,
        asCli: faithful,
      });
      await deployment.settled();
      if (options.signal?.aborted) throw new Error("the run was stopped (interrupted): steps in flight finished; run up again to finish");
      if (code !== 0 && !deployment.progress.failed) deployment.log("error", `the program exited with code ${code}`, "");
      if (code === 0 && !deployment.progress.failed) await deployment.deleteUndeclared();
      if (!dryRun) deployment.reportUnresolved();
    } else if (options.operation === "refresh") {
      await deployment.refresh();
    } else {
      await deployment.destroy();
    }
    if (options.signal?.aborted) throw new Error("the run was stopped (interrupted): steps in flight finished; run it again to finish");
  } catch (e) {
    error = (e as Error).message;
  } finally {
    clearTimeout(stopTimer);
    options.signal?.removeEventListener("abort", stopNow);
    options.signal?.removeEventListener("abort", cancelPlugins);
    await monitor.close();
    if (host) await host.then((h) => h.close(), () => undefined);
    await hosts.close();
    if (!dryRun) await snapshot.compact();
  }
  const { steps, diagnostics, failed } = deployment.progress;
  if (failed && !error) {
    error = steps.find((s) => s.phase === "failed")?.error ?? diagnostics.find((d) => d.severity === "error")?.message ?? "the deployment failed";
  }

  const stackRecord = snapshot.resources.find((r) => urnType(r.urn) === STACK_TYPE);
  const rawOutputs: PropertyMap = options.operation === "destroy" ? {} : (deployment.stackOutputs ?? stackRecord?.outputs ?? {});
  const changes: Partial<Record<StepOp, number>> = {};
  for (const s of steps) if (s.phase === "done") changes[s.op] = (changes[s.op] ?? 0) + 1;
  return {
    operation: options.operation,
    project: project.name,
    stack,
    ok: error === undefined,
    ...(error === undefined ? {} : { error }),
    changes,
    failed: steps.filter((s) => s.phase === "failed").length,
    skipped: steps.filter((s) => s.phase === "skipped").length,
    steps,
    outputs: revealed(rawOutputs as Value) as Record<string, unknown>,
    secretOutputs: Object.entries(rawOutputs).filter(([, v]) => isSecret(v)).map(([k]) => k),
    diagnostics,
    durationMs: Date.now() - started,
    statePath,
  };
}
