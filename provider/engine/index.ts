// The local engine: runs a Pulumi program (preview, up, refresh, destroy) the way `pulumi` does, without its CLI.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { Deployment, urnType, type EngineEvent, type Operation, type StepEvent, type StepOp } from "./deployment.ts";
import { childNodeOptions, runLanguageRuntime } from "./language.ts";
import { startMonitor } from "./monitor.ts";
import { checkStackName, loadProject, loadStackConfig, ProjectError, programConfigEnv, providerConfig, setConfigArg, type Project, type StackConfig } from "./project.ts";
import { DynamicProviderHost } from "./provider-host.ts";
import { lockStack, StackState } from "./state.ts";
import { isSecret, revealed, type PropertyMap, type Value } from "./values.ts";

export type { DiagnosticEvent, EngineEvent, Operation, StepEvent, StepOp } from "./deployment.ts";
export { PassphraseCrypter, PassphraseError } from "./secrets.ts";
export { ProjectError } from "./project.ts";
export { StateError } from "./state.ts";

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
  steps: StepEvent[];
  /** Stack outputs with secrets revealed; secretOutputs names the secret ones. */
  outputs: Record<string, unknown>;
  secretOutputs: string[];
  diagnostics: { severity: string; message: string; urn?: string }[];
  durationMs: number;
  statePath: string;
}

function resolvePassphrase(explicit: string | undefined): string {
  if (explicit !== undefined) return explicit;
  const env = process.env["PULUMI_CONFIG_PASSPHRASE"];
  if (env !== undefined) return env;
  const file = process.env["PULUMI_CONFIG_PASSPHRASE_FILE"];
  if (file) return readFileSync(file, "utf8").replace(/\r?\n$/, "");
  throw new ProjectError("set PULUMI_CONFIG_PASSPHRASE (or PULUMI_CONFIG_PASSPHRASE_FILE): the stack's secrets are encrypted with it");
}

export async function runProgram(options: RunOptions): Promise<RunResult> {
  const started = Date.now();
  const project = loadProject(options.cwd);
  const stack = checkStackName(options.stack ?? "dev");
  const parallel = options.parallel ?? 8;
  if (!Number.isInteger(parallel) || parallel < 1) throw new ProjectError(`parallel: expected a whole number >= 1 (got ${parallel})`);
  const passphrase = resolvePassphrase(options.passphrase);
  const { config, encryptionSalt } = await loadStackConfig(project, stack, passphrase);
  for (const [k, v] of Object.entries(options.config ?? {})) setConfigArg(config, project.name, `${k}=${v}`, false);
  for (const [k, v] of Object.entries(options.secrets ?? {})) setConfigArg(config, project.name, `${k}=${v}`, true);
  const statePath = join(resolve(options.stateDir ?? join(project.dir, ".audience", "state")), `${stack}.json`);
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
  const state = await StackState.load(statePath, passphrase, encryptionSalt);
  // After a failed step the program gets a moment to report and exit; then it is stopped, as Pulumi cancels it.
  const stopProgram = new AbortController();
  let stopTimer: NodeJS.Timeout | undefined;
  const emit = (event: EngineEvent) => {
    if (event.kind === "step" && event.phase === "failed") stopTimer ??= setTimeout(() => stopProgram.abort(), 10_000).unref();
    options.onEvent?.(event);
  };

  const baseEnv: NodeJS.ProcessEnv = { ...process.env, ...options.env };
  const childEnv: NodeJS.ProcessEnv = {
    ...baseEnv,
    NODE_OPTIONS: childNodeOptions(baseEnv),
    PULUMI_NODEJS_ORGANIZATION: "organization",
    PULUMI_NODEJS_PROJECT: project.name,
    PULUMI_NODEJS_STACK: stack,
  };
  let host: Promise<DynamicProviderHost> | undefined;
  let monitorAddress = "";
  const provider = () =>
    (host ??= DynamicProviderHost.start({
      cwd: project.dir,
      env: childEnv,
      engineAddress: monitorAddress,
      onOutput: (line) => deployment.log("debug", line, ""),
    }).then(async (h) => {
      await h.configure(providerConfig(config));
      return h;
    }));
  const stackOutputs = async (name: string): Promise<PropertyMap> => {
    // "org/project/stack" or "stack": stacks of this project live next to this one.
    const other = checkStackName(name.split("/").pop() ?? name);
    const path = join(dirname(statePath), `${other}.json`);
    if (!existsSync(path)) throw new Error(`StackReference ${name}: no stack "${other}" in ${dirname(statePath)}`);
    const loaded = await StackState.load(path, passphrase);
    return loaded.resources.find((r) => urnType(r.urn) === "pulumi:pulumi:Stack")?.outputs ?? {};
  };
  const deployment: Deployment = new Deployment({ project: project.name, stack, state, dryRun, parallel, emit, provider, stackOutputs });

  // A previous run that died mid-operation left a note: say what may exist without being tracked.
  for (const op of state.pending) {
    deployment.log("warning", `an interrupted ${op.type.replace(/ing$/, "e")} of ${op.resource.urn} was found: ${op.type === "creating" ? "it may exist in the service without being in the state; check and delete it by hand if so" : "the state may be out of date; run refresh"}`, op.resource.urn);
  }
  if (!dryRun && state.pending.length > 0) {
    state.pending = [];
    await state.save();
  }

  const monitor = await startMonitor(deployment, project.dir);
  monitorAddress = monitor.address;
  // Both processes take a while to load @pulumi/pulumi: start the provider host while the program boots.
  if (options.operation === "preview" || options.operation === "up" || state.resources.some((r) => r.custom && r.id)) provider().catch(() => undefined);
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
      });
      await deployment.settled();
      if (code !== 0 && !deployment.failed) deployment.log("error", `the program exited with code ${code}`, "");
      if (code === 0 && !deployment.failed) await deployment.deleteUndeclared();
    } else if (options.operation === "refresh") {
      await deployment.refresh();
    } else {
      const protectedOnes = state.resources.filter((r) => r.protect);
      if (protectedOnes.length > 0) throw new Error(`cannot destroy: protected resources ${protectedOnes.map((r) => r.urn).join(", ")}; set protect: false and run up first`);
      await deployment.deleteAll(state.resources.filter((r) => r.type !== "pulumi:providers:pulumi-nodejs"));
    }
  } catch (e) {
    error = (e as Error).message;
  } finally {
    clearTimeout(stopTimer);
    await monitor.close();
    if (host) await host.then((h) => h.close(), () => undefined);
    if (!dryRun) await state.save();
  }
  if (deployment.failed && !error) {
    error = deployment.steps.find((s) => s.phase === "failed")?.error ?? deployment.diagnostics.find((d) => d.severity === "error")?.message ?? "the deployment failed";
  }

  const stackRecord = state.resources.find((r) => urnType(r.urn) === "pulumi:pulumi:Stack");
  const rawOutputs: PropertyMap = options.operation === "destroy" ? {} : (deployment.stackOutputs ?? stackRecord?.outputs ?? {});
  const changes: Partial<Record<StepOp, number>> = {};
  for (const s of deployment.steps) if (s.phase === "done") changes[s.op] = (changes[s.op] ?? 0) + 1;
  return {
    operation: options.operation,
    project: project.name,
    stack,
    ok: error === undefined,
    ...(error === undefined ? {} : { error }),
    changes,
    steps: deployment.steps,
    outputs: revealed(rawOutputs as Value) as Record<string, unknown>,
    secretOutputs: Object.entries(rawOutputs).filter(([, v]) => isSecret(v)).map(([k]) => k),
    diagnostics: deployment.diagnostics,
    durationMs: Date.now() - started,
    statePath,
  };
}
