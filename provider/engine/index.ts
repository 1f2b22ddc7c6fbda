// The local engine: runs a Pulumi program (preview, up, refresh, destroy) the way `pulumi` does, without its CLI.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { nodeProblem } from "pulumi-audience/node-version";
import { defaultParallel } from "./parallel.ts";
import { masked } from "./changes.ts";
import { Deployment, type Operation } from "./deployment.ts";
import type { EngineEvent, StepEvent } from "./events.ts";
import { childNodeOptions, nodeRuntime, type LanguageRuntime } from "./language.ts";
import { startMonitor, whenReady, type MonitorServer } from "./monitor.ts";
import { journalPath } from "./journal.ts";
import { checkStackName, configuredStacks, loadProject, loadStackConfig, packageConfig, ProjectError, programConfigEnv, providerConfig, setConfigArg, type Project, type StackConfig } from "./project.ts";
import { PluginHost } from "./plugin-host.ts";
import type { EngineExtension, InProcessDynamic } from "./extension.ts";
import { DynamicProviders } from "./in-process-provider.ts";
import { DynamicProviderHost } from "./provider-host.ts";
import type { ResourceCalls } from "./resource-calls.ts";
import { providerPackage, providerTypeOf, ProviderHosts } from "./providers.ts";
import { lockStack, type StackLock } from "./lock.ts";
import { Snapshot } from "./snapshot.ts";
import { DEFAULT_STACK, resolvePassphrase, stackPlace, stacksWithState, stackStatePath } from "./stack-files.ts";
import type { StepOp } from "./steps.ts";
import { PROVIDER_TYPE as DYNAMIC_PROVIDER_TYPE, STACK_TYPE, urnType } from "./urn.ts";
import { isSecret, makeSecret, revealed, type PropertyMap, type Value } from "../protocol/values.ts";

export type { Operation } from "./deployment.ts";
export type { EngineExtension, InProcessContext, InProcessDynamic } from "./extension.ts";
export type { DiagnosticEvent, EngineEvent, StepEvent } from "./events.ts";
export type { LeafChange } from "./changes.ts";
export type { StepOp } from "./steps.ts";
export { PassphraseCrypter, PassphraseError } from "./secrets.ts";
export { DEFAULT_STACK, resolvePassphrase, stackStatePath } from "./stack-files.ts";
export { ProjectError } from "./project.ts";
export { defaultParallel } from "./parallel.ts";
export { Snapshot } from "./snapshot.ts";
export { StateError } from "./state-file.ts";

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
  /** Resource operations in flight at once; default `defaultParallel()`. */
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
   * dynamic-provider host started through its launcher (which loads the provider installed for the program), the
   * plugin gets the CLI's arguments and environment; pending operations handled as the CLI handles them; nothing
   * served in process. Which plugin to start and the hints the CLI does not send are the extension's to decide.
   */
  faithful?: boolean;
  /** What the package the engine runs adds to it (see extension.ts); without one, dynamic resources only. */
  extension?: EngineExtension;
  /** Runs the program against the engine's monitor; default: @pulumi/pulumi's Node runtime in a child process. */
  runtime?: LanguageRuntime;
  /**
   * Serves the dynamic resources this package does not; default: @pulumi/pulumi's dynamic-provider host, started
   * on first use. Not used in CLI-faithful mode, where every dynamic resource goes to that host.
   */
  dynamicHost?: () => Promise<ResourceCalls>;
}

export interface RunResult {
  operation: Operation;
  project: string;
  stack: string;
  ok: boolean;
  /** What went wrong, when ok is false. */
  error?: string;
  /** What kind of failure `error` is, when its provider said (a failed step's `code`). */
  errorCode?: string;
  /** Finished steps by kind, e.g. { create: 3, same: 1 }. */
  changes: Partial<Record<StepOp, number>>;
  /** Steps that failed, and steps not run because a resource they depend on failed. */
  failed: number;
  skipped: number;
  steps: StepEvent[];
  /** Stack outputs with secrets revealed; secretOutputs names the secret ones. */
  outputs: Record<string, unknown>;
  secretOutputs: string[];
  /** Stack outputs as people and `--json` see them: every secret, nested ones too, as `[secret]`. */
  shownOutputs: Record<string, unknown>;
  diagnostics: { severity: string; message: string; urn?: string }[];
  durationMs: number;
  statePath: string;
}


export async function runProgram(options: RunOptions): Promise<RunResult> {
  // The language runtime runs the program on this Node, whose type stripping its `.ts` files need: before anything
  // starts, name the Node to get rather than fail on "Unknown file extension".
  const tooOld = nodeProblem(process.versions.node);
  if (tooOld) throw new ProjectError(tooOld);
  const started = Date.now();
  const project = loadProject(options.cwd);
  const stack = checkStackName(options.stack ?? DEFAULT_STACK);
  const parallel = options.parallel ?? defaultParallel();
  if (!Number.isInteger(parallel) || parallel < 1) throw new ProjectError(`parallel: expected a whole number >= 1 (got ${parallel})`);
  const passphrase = resolvePassphrase(options.passphrase);
  const { config, encryptionSalt } = await loadStackConfig(project, stack, passphrase);
  for (const [k, v] of Object.entries(options.config ?? {})) setConfigArg(config, project.name, `${k}=${v}`, false);
  for (const [k, v] of Object.entries(options.secrets ?? {})) setConfigArg(config, project.name, `${k}=${v}`, true);
  const statePath = stackStatePath(project.dir, stack, options.stateDir);
  if (options.operation === "refresh" || options.operation === "destroy") refuseUnknownStack(project, stack, statePath, options.operation);
  const dryRun = options.operation === "preview";
  // The lock is taken while the program starts (the program does not touch the state): the state is read once it is.
  const locking: Promise<StackLock> = dryRun ? Promise.resolve(async () => undefined) : lockStack(statePath);
  locking.catch(() => undefined); // awaited below, before the state is read
  try {
    return await deploy(options, { project, stack, parallel, passphrase, config, encryptionSalt, statePath, dryRun, started, locking });
  } finally {
    const unlock = await locking.catch(() => undefined);
    await unlock?.();
  }
}

/**
 * A stack is made by its first `up`: one with no state, no journal and no config file is a mistyped name, which a
 * refresh or destroy would leave behind as an empty stack.
 */
function refuseUnknownStack(project: Project, stack: string, statePath: string, operation: Operation): void {
  if (existsSync(statePath) || existsSync(journalPath(statePath))) return;
  const configured = configuredStacks(project);
  if (configured.includes(stack)) return;
  const known = [...new Set([...stacksWithState(dirname(statePath)), ...configured])].sort();
  const here = known.length > 0 ? `the stacks here: ${known.join(", ")}` : "no stack here has been deployed yet";
  throw new ProjectError(`no stack "${stack}" to ${operation}: it has no state in ${dirname(statePath)} and no Pulumi.${stack}.yaml (${here})`);
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
  /** The stack's lock, being taken; its `interruptedSince`: it was taken from a run that died, which began then. */
  locking: Promise<StackLock>;
}

async function deploy(options: RunOptions, { project, stack, parallel, passphrase, config, encryptionSalt, statePath, dryRun, started, locking }: Prepared): Promise<RunResult> {
  // The state is read, its key derived if it holds a secret (PBKDF2 of a million rounds) and the deployment made
  // while the program boots, which takes longer: the monitor holds the program's first calls until then.
  // A run that changes the stack claims it in its journal before anything is sent.
  const loading = locking.then(({ interruptedSince }) => Snapshot.load(statePath, passphrase, encryptionSalt, { claim: !dryRun, interruptedSince, place: stackPlace(options.cwd, stack, options.stateDir) }));
  loading.catch(() => undefined); // awaited below, before anything is reported
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
  const faithful = options.faithful ?? false;
  const extension = options.extension ?? {};
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
  const dynamicHost = () =>
    (host ??= engineAddress().then((monitorAddress) => DynamicProviderHost.start({
      cwd: project.dir,
      asCli: faithful,
      // The provider's logs (a build's status) reach this engine's Log service, as the program's do.
      env: faithful ? cliHostEnv : { ...childEnv, PULUMI_NODEJS_ENGINE: monitorAddress },
      engineAddress: monitorAddress,
      ...(extension.stepTimeout ? { stepTimeout: extension.stepTimeout } : {}),
      // What the package's provider prints may be for the user (the extension says); the rest is for debugging.
      onOutput: (line) => {
        const { severity, message } = extension.onHostLog?.(line) ?? { severity: "debug" as const, message: line };
        deployment.log(severity, message, "");
      },
    })).then(async (h) => {
      await h.configure(providerConfig(config));
      return h;
    }));
  const stackOutputs = async (name: string): Promise<PropertyMap> => {
    // "stack", "project/stack" or "organization/project/stack": the stacks of this project live next to this one;
    // another project's are not here, and must not be taken for this project's stack of the same name.
    const parts = name.split("/");
    if (parts.length > 3 || parts.some((part) => part === "")) throw new Error(`StackReference ${name}: expected stack, project/stack or organization/project/stack`);
    const otherProject = parts.length > 1 ? parts.at(-2)! : project.name;
    if (otherProject !== project.name) {
      throw new Error(`StackReference ${name}: audience run keeps the stacks of this project (${project.name}) only, in ${dirname(statePath)}; a stack of project ${otherProject} is not there. Run both programs with pulumi and one backend to read it`);
    }
    const other = checkStackName(parts.at(-1)!);
    const path = join(dirname(statePath), `${other}.json`);
    if (!existsSync(path)) throw new Error(`StackReference ${name}: no stack "${other}" in ${dirname(statePath)}`);
    const loaded = await Snapshot.load(path, passphrase);
    return loaded.resources.find((r) => urnType(r.urn) === STACK_TYPE)?.outputs ?? {};
  };
  // Faithful: every dynamic resource through the host, as under the CLI; else the extension's in the engine's process.
  const inProcess = faithful ? undefined : extension.inProcess;
  let own: ResourceCalls | undefined;
  const ownProvider = (served: InProcessDynamic) => (own ??= served.start({
    config: providerConfig(config),
    env: childEnv,
    log: (severity, message, ephemeral) => deployment.log(severity, message, "", ephemeral),
    ...(options.signal ? { signal: options.signal } : {}),
  }));
  // Dynamic resources of other packages: the run's own server of them (tests), else @pulumi/pulumi's host.
  const otherDynamic = faithful ? dynamicHost : (options.dynamicHost ?? dynamicHost);
  const dynamic = inProcess && new DynamicProviders(inProcess.serves, () => ownProvider(inProcess), otherDynamic);
  const hosts = new ProviderHosts({
    pluginPackage: extension.packageName,
    dynamic: async () => dynamic ?? otherDynamic(),
    // The plugin's warnings and progress come through the monitor's Log service, as the program's do.
    plugin: async () => {
      if (!extension.pluginLaunch) throw new Error(`the ${extension.packageName} package gives no way to start its provider plugin`);
      const monitorAddress = await engineAddress();
      return PluginHost.start({
        cwd: project.dir,
        env: faithful ? cliPluginEnv : childEnv,
        engineAddress: monitorAddress,
        onOutput: (line) => deployment.log("debug", line, ""),
        launch: extension.pluginLaunch(project.dir),
      });
    },
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
  const defaultProviderInputs = (providerType: string) => packageConfig(config, providerPackage(providerType), providerType === DYNAMIC_PROVIDER_TYPE);
  let deployment!: Deployment;
  const ready = loading.then(async (snapshot) => {
    deployment = new Deployment({
      project: project.name, stack, snapshot, dryRun, parallel, emit, provider, configChecker, checkDefaultProvider, defaultProviderInputs, call, stackOutputs, extension,
      configSecrets: [...config.values()].filter((c) => c.secret).map((c) => makeSecret(c.value as Value)),
      asCli: faithful,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    await deployment.reportInterrupted();
    return deployment;
  });
  const handler = whenReady(ready);
  // The resource monitor serves the program and the providers' logs: started for the first of them, so a refresh or
  // a destroy of this package's resources, which start neither, serves nothing.
  let monitor: Promise<MonitorServer> | undefined;
  const engineAddress = async () => (await (monitor ??= startMonitor(handler, project.dir))).address;
  /** Ends what the run started besides the program and the state: timers, listeners, the monitor, providers. */
  const release = async () => {
    clearTimeout(stopTimer);
    options.signal?.removeEventListener("abort", stopNow);
    options.signal?.removeEventListener("abort", cancelPlugins);
    if (monitor) await monitor.then((m) => m.close(), () => undefined);
    if (host) await host.then((h) => h.close(), () => undefined);
    await hosts.close();
  };
  let program: Promise<number> | undefined;
  let snapshot: Snapshot;
  try {
    if (options.operation === "preview" || options.operation === "up") {
      program = (options.runtime ?? nodeRuntime).run({
        project,
        stack,
        monitorAddress: await engineAddress(),
        dryRun,
        parallel,
        env: { ...childEnv, ...programConfigEnv(config) },
        onOutput: (line) => handler.log("info", line, ""),
        signal: stopProgram.signal,
        asCli: faithful,
      });
      program.catch(() => undefined); // awaited below, where a program that could not start is the run's error
      // The program is starting: this package's provider loads meanwhile, ready for the first resource it declares.
      if (inProcess) ownProvider(inProcess);
    }
    snapshot = await loading;
    await ready;
  } catch (e) {
    // An unreadable state (or a wrong passphrase) is the run's one error: the program, held, is stopped unheard.
    stopProgram.abort();
    await program?.catch(() => undefined);
    await release();
    await loading.then((s) => s.close(), () => undefined);
    throw e;
  }

  // Both processes take a while to load @pulumi/pulumi: when the state holds dynamic resources of other providers,
  // start the host while the program boots. Those served in process need no host.
  if (otherDynamic === dynamicHost && snapshot.resources.some((r) => r.custom && r.id && providerTypeOf(r.type, extension.packageName) === DYNAMIC_PROVIDER_TYPE && !inProcess?.serves(r.outputs))) dynamicHost().catch(() => undefined);
  let error: string | undefined;
  try {
    if (program) {
      hosts.startEarlyFor(snapshot.resources);
      const code = await program;
      await deployment.settled();
      if (options.signal?.aborted) throw new Error("the run was stopped (interrupted): steps in flight finished; run up again to finish");
      if (code !== 0 && !deployment.progress.failed) deployment.log("error", `the program exited with code ${code}`, "");
      if (code !== 0) await deployment.keepStackOutputs();
      if (code === 0 && !deployment.progress.failed) await deployment.deleteUndeclared();
      if (!dryRun) deployment.reportUnresolved();
    } else if (options.operation === "refresh") {
      await deployment.resolvePendingCreates();
      await deployment.refresh();
    } else {
      await deployment.resolvePendingCreates();
      await deployment.destroy();
    }
    if (options.signal?.aborted) throw new Error("the run was stopped (interrupted): steps in flight finished; run it again to finish");
  } catch (e) {
    error = deployment.scrub((e as Error).message);
  } finally {
    await release();
    try {
      if (!dryRun) await snapshot.compact();
    } finally {
      await snapshot.close();
    }
  }
  const { steps, diagnostics, failed } = deployment.progress;
  let errorCode: string | undefined;
  if (failed && !error) {
    const step = steps.find((s) => s.phase === "failed");
    error = step?.error ?? diagnostics.find((d) => d.severity === "error")?.message ?? "the deployment failed";
    errorCode = step?.code;
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
    ...(errorCode === undefined ? {} : { errorCode }),
    changes,
    failed: steps.filter((s) => s.phase === "failed").length,
    skipped: steps.filter((s) => s.phase === "skipped").length,
    steps,
    outputs: revealed(rawOutputs as Value) as Record<string, unknown>,
    secretOutputs: Object.entries(rawOutputs).filter(([, v]) => isSecret(v)).map(([k]) => k),
    shownOutputs: masked(rawOutputs as Value) as Record<string, unknown>,
    diagnostics,
    durationMs: Date.now() - started,
    statePath,
  };
}
