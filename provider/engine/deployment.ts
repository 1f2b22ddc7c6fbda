// One run of preview, up, refresh or destroy: takes the program's registrations in dependency order, has the step
// generator plan each and the step executor carry it out (a preview only reports the plan), then deletes what the
// program no longer declares.
import { randomUUID } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import { Progress, type EngineEvent } from "./events.ts";
import { KnownSecrets } from "../protocol/known-secrets.ts";
import type { MonitorHandler, ReadRequest, Registered, Registration, Severity } from "./monitor.ts";
import type { EngineExtension } from "./extension.ts";
import type { CheckResult, ResourceCalls } from "./resource-calls.ts";
import type { ConfigChecker } from "./step-generator.ts";
import { DEFAULT_PROVIDER_NAME, defaultProviderName, INTERNAL_KEY, packageProviderType, providerTypeOf, providerUrn, type ProviderVersion } from "./providers.ts";
import type { Snapshot } from "./snapshot.ts";
import type { PendingOperation, ResourceState } from "./state-file.ts";
import { StepExecutor } from "./step-executor.ts";
import { StepGenerator } from "./step-generator.ts";
import { failureCode, PlanError, protectedDelete, type DeleteStep, type Step } from "./steps.ts";
import { makeUrn, STACK_TYPE, urnType } from "./urn.ts";
import { containsUnknown, UNKNOWN, type PropertyMap, type Value } from "../protocol/values.ts";

export type Operation = "preview" | "up" | "refresh" | "destroy";

export interface DeploymentOptions {
  project: string;
  stack: string;
  snapshot: Snapshot;
  dryRun: boolean;
  parallel: number;
  /** The provider process serving a resource type through a provider reference (the default one when absent). */
  provider: (type: string, ref: string | undefined) => Promise<ResourceCalls>;
  /** What checks the config of provider resources of a type (`pulumi:providers:<package>`), if anything does. */
  configChecker?: (providerType: string) => Promise<ConfigChecker> | undefined;
  /** The inputs a default provider of a provider type records: its package's stack config, as Pulumi records it. */
  defaultProviderInputs?: (providerType: string) => PropertyMap;
  /** Checks the config of the default provider of a provider type, if anything checks it. */
  checkDefaultProvider?: (providerType: string, urn: string) => Promise<CheckResult | undefined>;
  /** Calls a provider's function (`<package>:index:getCohort`) through a provider reference. */
  call?: (token: string, args: PropertyMap, ref: string | undefined) => Promise<PropertyMap>;
  /** Outputs of another stack of this project, for StackReference. */
  stackOutputs: (stack: string) => Promise<PropertyMap>;
  /** The stack config's secret values, masked with the others wherever a failure is shown or recorded. */
  configSecrets?: readonly Value[];
  /** What the package the engine runs adds: its plugin's package, adoption, what a resumed create tells it. */
  extension?: Pick<EngineExtension, "packageName" | "pluginDownloadURL" | "adoptIdOf" | "decorateCreate">;
  emit: (event: EngineEvent) => void;
  /** Aborted when the run is to stop: no new step starts; those in flight finish. */
  signal?: AbortSignal;
  /** Pending operations are handled as the Pulumi CLI handles them (see StepExecutorOptions.asCli). */
  asCli?: boolean;
}

/** The run was asked to stop (SIGINT, SIGTERM) before this step began. */
export class CancelledError extends Error {
  override name = "CancelledError";
}

export class Deployment implements MonitorHandler {
  readonly progress: Progress;
  stackOutputs: PropertyMap | undefined;
  readonly #o: DeploymentOptions;
  readonly #generator: StepGenerator;
  readonly #executor: StepExecutor;
  readonly #registered = new Set<string>();
  readonly #completions = new Map<string, Promise<void>>();
  /** Resources of this run, as the program declared them (preview keeps them here only). */
  readonly #news = new Map<string, ResourceState>();
  /** URNs of the state that resources of this run took over through an alias (a preview keeps them in the state). */
  readonly #renamedFrom = new Set<string>();
  /** The stack's record and its outputs before the program registered any. */
  #stackOutputsBefore: { record: ResourceState; outputs: PropertyMap } | undefined;
  /** The inputs of each registration of this run, for the secrets they hold (`scrub`). */
  readonly #declared = new Map<string, PropertyMap>();
  readonly #secrets = new KnownSecrets();
  /** The default provider of each provider type, as `<urn>::<id>`. */
  readonly #providerRefs = new Map<string, Promise<string>>();
  /** Steps in flight at once: `parallel`, whatever their kind, as `pulumi up --parallel`. */
  readonly #inSlot: <T>(fn: (release: () => void) => Promise<T>) => Promise<T>;

  constructor(options: DeploymentOptions) {
    this.#o = options;
    this.#inSlot = limiter(options.parallel);
    this.progress = new Progress(options.emit, options.dryRun, (text) => this.scrub(text));
    this.#generator = new StepGenerator({
      provider: options.provider,
      defaultProvider: (type, asked) => this.#defaultProvider(type, asked),
      stackOutputs: options.stackOutputs,
      ...(options.extension?.adoptIdOf ? { adoptedId: options.extension.adoptIdOf } : {}),
      ...(options.extension?.packageName ? { pluginPackage: options.extension.packageName } : {}),
      ...(options.configChecker ? { configChecker: options.configChecker } : {}),
    });
    this.#executor = new StepExecutor({
      snapshot: options.snapshot,
      provider: options.provider,
      asCli: options.asCli ?? false,
      ...(options.extension?.decorateCreate ? { decorateCreate: options.extension.decorateCreate } : {}),
      scrub: (text) => this.scrub(text),
    });
  }

  /** `text` with every secret the run knows masked: the config's, the state's, and those of this run's resources. */
  scrub(text: string): string {
    const values = function* (this: Deployment) {
      yield this.#o.configSecrets ?? [];
      for (const r of this.#snapshot.resources) yield* [r.inputs, r.outputs];
      for (const op of this.#snapshot.pending) yield op.resource.inputs;
      yield* this.#declared.values();
      for (const r of this.#news.values()) yield r.outputs;
    };
    return this.#secrets.mask(text, values.call(this));
  }

  get #snapshot(): Snapshot {
    return this.#o.snapshot;
  }

  get #pluginPackage(): string | undefined {
    return this.#o.extension?.packageName;
  }

  log(severity: Severity, message: string, urn: string, ephemeral = false): void {
    this.progress.log(severity, message, urn, ephemeral);
  }

  /** Plans a step; a step that cannot be planned is reported failed. */
  async #plan<S extends Step>(urn: string, make: () => Promise<S>): Promise<S> {
    try {
      return await make();
    } catch (e) {
      if (e instanceof PlanError) this.progress.fail(e.op, urn, e.keys, e.message, e.code);
      throw e;
    }
  }

  /**
   * Carries out a planned step (a preview only reports it); resolves with the state it leaves, once recorded.
   * `acted`: its calls to the service are over (what is left is its record reaching the disk).
   */
  #perform(step: Step, acted: () => void): Promise<ResourceState | undefined> {
    return this.progress.track(step, async () => {
      if (this.#o.dryRun) return "new" in step ? step.new : undefined;
      return this.#executor.execute(step, acted);
    });
  }

  /**
   * Plans a resource's step and carries it out in one of the run's `parallel` slots, unless the run was stopped. The
   * slot is the service's: it goes to the next step once this one's calls are over, while its record is written
   * (with the next ones, in one sync).
   */
  #step(urn: string, make: () => Promise<Step>): Promise<ResourceState | undefined> {
    return this.#inSlot(async (release) => {
      this.#checkNotCancelled(urn);
      return this.#perform(await this.#plan(urn, make), release);
    });
  }

  #checkNotCancelled(urn: string): void {
    if (this.#o.signal?.aborted) throw new CancelledError(`${urn}: not started: the run was stopped`);
  }

  #claim(type: string, name: string, parent: string): string {
    const urn = makeUrn(this.#o.stack, this.#o.project, type, name, parent);
    if (this.#registered.has(urn)) throw new Error(`duplicate resource URN ${urn}: give each resource a unique name`);
    this.#registered.add(urn);
    return urn;
  }

  async register(reg: Registration): Promise<Registered> {
    const urn = this.#claim(reg.type, reg.name, reg.parent);
    this.#declared.set(urn, reg.inputs);
    let finish!: () => void;
    this.#completions.set(urn, new Promise<void>((resolve) => (finish = resolve)));
    try {
      // Dependencies and the resource's provider finish first; a failed one keeps this one from running, reported
      // as skipped.
      const provider = reg.provider || (reg.custom && providerTypeOf(reg.type, this.#pluginPackage) ? await this.#defaultProvider(reg.type, reg) : "");
      // Looked up once its default provider is in place, which may have moved the resource's reference to it.
      let old = this.#snapshot.find(urn);
      for (const alias of reg.aliasUrns) old ??= this.#snapshot.find(alias);
      // Found under an alias: the resource of that URN is this one, renamed, not one the program left out.
      if (old && old.urn !== urn) this.#renamedFrom.add(old.urn);
      const deps = [...reg.dependencies, ...Object.values(reg.propertyDependencies).flat(), ...(provider ? [providerUrn(provider)] : [])];
      await Promise.all(deps.map((d) => this.#completions.get(d)));
      const failedDep = deps.find((d) => this.progress.hasFailed(d));
      if (failedDep) {
        this.progress.skip(old ? "update" : "create", urn, failedDep);
        return unresolved(urn, reg);
      }
      this.#checkNotCancelled(urn);
      const state = (await this.#step(urn, () => this.#generator.register(urn, reg, old)))!;
      this.#news.set(urn, state);
      return { urn, id: state.id ?? "", outputs: reg.custom ? state.outputs : {} };
    } catch (e) {
      // Reported once, on this resource; the program goes on with unknown outputs, so what depends on them arrives
      // and is reported skipped instead of the program failing again on each of them.
      if (this.progress.hasFailed(urn)) return unresolved(urn, reg);
      throw e;
    } finally {
      finish();
    }
  }

  /** Resolves once every registration received so far has finished. */
  async settled(): Promise<void> {
    await Promise.all(this.#completions.values());
  }

  async registerOutputs(urn: string, outputs: PropertyMap): Promise<void> {
    const record = this.#news.get(urn);
    if (!record) throw new Error(`outputs for ${urn}, which this program did not register`);
    if (urnType(urn) === STACK_TYPE) this.#stackOutputsBefore ??= { record, outputs: record.outputs };
    // After a failure an output may derive from a resource that did not run: it is not known, so not recorded.
    record.outputs = this.#o.dryRun ? outputs : Object.fromEntries(Object.entries(outputs).filter(([, v]) => !containsUnknown(v)));
    if (urnType(urn) === STACK_TYPE) this.stackOutputs = record.outputs;
    if (!this.#o.dryRun) await this.#executor.record(record);
  }

  /**
   * Puts back the stack's outputs as they were before the run: the runtime registers none for a program that threw
   * (it still registers the stack's), and Pulumi keeps the outputs of the last program that finished.
   */
  async keepStackOutputs(): Promise<void> {
    const before = this.#stackOutputsBefore;
    if (before === undefined) return;
    before.record.outputs = before.outputs;
    this.stackOutputs = before.outputs;
    if (!this.#o.dryRun) await this.#executor.record(before.record);
  }

  async invoke(token: string, args: PropertyMap, provider = ""): Promise<PropertyMap> {
    if (token === "pulumi:pulumi:getResource") {
      const urn = String(args["urn"] ?? "");
      // A resource of this run is read once its step is over.
      if (this.#registered.has(urn)) await this.#completions.get(urn);
      const found = this.#news.get(urn) ?? this.#snapshot.find(urn);
      if (found) return { urn, id: found.id ?? "", state: found.outputs };
      // One that failed or was skipped has no state: what the program reads of it is not known, and reading it is
      // no second failure (what depends on it is skipped already).
      if (this.progress.hasFailed(urn)) return { urn, id: "", state: {} };
      throw new Error(`pulumi:pulumi:getResource: no resource ${urn} in this stack`);
    }
    if (this.#o.call && providerTypeOf(token, this.#pluginPackage)) return this.#o.call(token, args, provider || undefined);
    throw new Error(`function ${token} is not served by the local engine: a dynamic provider has no functions, so lookups run in the program`);
  }

  async read(req: ReadRequest): Promise<{ urn: string; outputs: PropertyMap }> {
    const urn = this.#claim(req.type, req.name, req.parent);
    const state = (await this.#step(urn, () => this.#generator.read(urn, req)))!;
    this.#news.set(urn, state);
    return { urn, outputs: state.outputs };
  }

  /**
   * The default provider resources of `type` record when they name none, created implicitly and named as Pulumi
   * does: `default_0_1_0_github_/api.github.com/...` for a resource asking for version 0.1.0, with the download URL
   * the language host reports for the package when the resource asks for none.
   */
  #defaultProvider(type: string, asked: ProviderVersion = {}): Promise<string> {
    const providerType = providerTypeOf(type, this.#pluginPackage) ?? type;
    const reported = this.#pluginPackage !== undefined && providerType === packageProviderType(this.#pluginPackage) ? this.#o.extension?.pluginDownloadURL : undefined;
    const requested: ProviderVersion = { version: asked.version ?? "", pluginDownloadURL: asked.pluginDownloadURL || (reported ?? "") };
    const name = defaultProviderName(requested);
    let ref = this.#providerRefs.get(`${providerType}::${name}`);
    if (!ref) {
      ref = (async () => {
        const urn = makeUrn(this.#o.stack, this.#o.project, providerType, name, "");
        const existing = this.#snapshot.find(urn) ?? (await this.#renameEarlierProvider(urn, providerType, requested));
        // As the CLI records it, which configures it from these alone where no program runs (`pulumi refresh`): the
        // package's config and the version, and in the inputs alone the engine's own `__internal` (the URL).
        const outputs: PropertyMap = { ...this.#o.defaultProviderInputs?.(providerType), ...(requested.version ? { version: requested.version } : {}) };
        const inputs: PropertyMap = requested.version || requested.pluginDownloadURL
          ? { [INTERNAL_KEY]: requested.pluginDownloadURL ? { pluginDownloadURL: requested.pluginDownloadURL } : {}, ...outputs }
          : outputs;
        const record: ResourceState = { ...(existing ?? { urn, custom: true, type: providerType, id: randomUUID(), dependencies: [] }), inputs, outputs };
        this.#registered.add(urn);
        // Its config is the stack's: checked as an explicit provider's is. A failure is reported on the provider,
        // and the resources it would serve are skipped.
        const checked = await this.#o.checkDefaultProvider?.(providerType, urn).catch((e: Error) => ({ failures: [{ property: "", reason: e.message }] }));
        if (checked?.failures.length) {
          const message = `${providerType} "${name}": ${checked.failures.map((f) => f.reason).join("; ")}`;
          this.progress.fail(existing ? "update" : "create", urn, checked.failures.map((f) => f.property), message);
        } else if (!this.#o.dryRun && !(existing && isDeepStrictEqual(existing.inputs, inputs) && isDeepStrictEqual(existing.outputs, outputs))) {
          await this.#executor.record(record);
        }
        return `${urn}::${record.id}`;
      })();
      this.#providerRefs.set(`${providerType}::${name}`, ref);
    }
    return ref;
  }

  /**
   * A state whose default provider has an earlier name: `default` (as this engine named every one), or the name
   * without the download URL (as this engine and Pulumi's older Node.js language host named it). That provider moves
   * to `urn` with its id, and the resources it served with it, so the move shows no provider change (nor does a later
   * one to the CLI).
   */
  async #renameEarlierProvider(urn: string, providerType: string, requested: ProviderVersion): Promise<ResourceState | undefined> {
    const earlier = [...new Set([DEFAULT_PROVIDER_NAME, defaultProviderName({ ...requested, pluginDownloadURL: "" })])]
      .map((name) => makeUrn(this.#o.stack, this.#o.project, providerType, name, ""))
      .filter((candidate) => candidate !== urn)
      .map((candidate) => this.#snapshot.find(candidate))
      .find((found) => found !== undefined);
    if (!earlier) return undefined;
    const moved: ResourceState = { ...earlier, urn };
    if (this.#o.dryRun) return moved;
    await this.#snapshot.upsert(moved, { renamed: earlier });
    const [from, to] = [`${earlier.urn}::${earlier.id}`, `${urn}::${earlier.id}`];
    await Promise.all(this.#snapshot.resources.filter((r) => r.provider === from).map((r) => this.#snapshot.upsert({ ...r, provider: to })));
    return moved;
  }

  /** The inputs of a provider resource: as this run declared it, else as the state holds it. */
  providerInputs(urn: string): PropertyMap | undefined {
    return (this.#news.get(urn) ?? this.#snapshot.find(urn))?.inputs;
  }

  /** Warns of operations a run that died midway left pending: what they touched may be untracked or stale. */
  async reportInterrupted(): Promise<void> {
    for (const warning of this.#snapshot.warnings) this.log("warning", warning, "");
    const since = this.#snapshot.interruptedSince;
    if (since !== undefined && !this.#o.asCli) {
      this.log("warning", `a run that began at ${new Date(since).toISOString()} stopped before it finished; `
        + "in case its journal lost records of what it made, each resource this run creates is first looked for in the account", "");
    }
    if (this.#o.asCli) {
      if (this.#snapshot.pending.length > 0 && !this.#o.dryRun) this.log("warning", cliPendingWarning(this.#snapshot.pending, this.#snapshot.command("pending")), "");
      if (!this.#o.dryRun) await this.#executor.forgetInterrupted();
      return;
    }
    for (const op of this.#snapshot.pending) {
      const advice = op.type !== "creating" ? `the state may be out of date; its next ${op.type.replace(/ing$/, "e")} sends it again, or run refresh`
        : op.startedAt !== undefined ? "its next create first looks for what it may have made"
          : "it may exist in the service without being in the state; check and delete it by hand if so";
      const why = op.reason === undefined ? "" : ` (its outcome is unknown: ${op.reason})`;
      this.log("warning", `an interrupted ${op.type.replace(/ing$/, "e")} of ${op.resource.urn} was found${why}: ${advice}`, op.resource.urn);
    }
    if (!this.#o.dryRun) await this.#executor.forgetInterrupted();
  }

  /** Warns of creates whose outcome is still unknown after this run: the next up looks for them again. */
  reportUnresolved(): void {
    for (const op of this.#executor.carriedCreates()) {
      this.log("warning", `the interrupted create of ${op.resource.urn} is still pending: resolve it with \`${this.#snapshot.command("pending")}\``, op.resource.urn);
    }
    for (const op of this.#executor.unresolved()) {
      this.log("warning", `the create of ${op.resource.urn} has an unknown outcome; the next up looks for what it made before creating it`, op.resource.urn);
    }
  }

  /** After the program: resources it no longer declares go, dependents before what they depend on. */
  async deleteUndeclared(): Promise<void> {
    await this.#deleteAll(this.#generator.undeclared(this.#snapshot.resources, new Set([...this.#registered, ...this.#renamedFrom])));
  }

  /**
   * Before a destroy or a refresh: each create an earlier run left pending is resolved as up resolves it, by looking
   * for what it made (recorded, so a destroy deletes it) without creating anything. A look that fails fails the run,
   * the create still pending, rather than leave a resource behind unnoticed.
   */
  async resolvePendingCreates(): Promise<void> {
    if (this.#o.dryRun) return;
    await Promise.all(this.#executor.pendingCreates().map(([id, op]) => this.#inSlot(async () => {
      const { urn } = op.resource;
      try {
        const found = await this.#executor.resolvePendingCreate(id, op);
        this.log("info", found ? `the interrupted create of ${urn} made ${found.id}: it is recorded in the state` : `the interrupted create of ${urn} made nothing: it is dropped`, urn);
      } catch (e) {
        this.progress.fail("create", urn, [], `the interrupted create of ${urn} could not be resolved: ${(e as Error).message}`, failureCode(e));
      }
    })));
  }

  /** Deletes every resource of the stack, dependents first; refused while any is protected. */
  async destroy(): Promise<void> {
    await this.#deleteAll(this.#generator.destroy(this.#snapshot.resources));
  }

  /** Runs delete steps once the deletes they wait for are done, independent ones in parallel. */
  async #deleteAll(steps: DeleteStep[]): Promise<void> {
    const byUrn = new Map<string, DeleteStep[]>();
    for (const s of steps) {
      const list = byUrn.get(s.urn);
      if (list) list.push(s);
      else byUrn.set(s.urn, [s]);
    }
    // A resource whose dependent could not be deleted stays, reported skipped with why, as `up` reports it.
    // A protected one is refused when planned, so a preview says what the up would meet.
    const planned = async (s: DeleteStep) => {
      if (s.old.protect) throw new PlanError(protectedDelete(s.urn), "delete");
      return s;
    };
    await inDependencyOrder(steps, (s) => s.after.flatMap((urn) => byUrn.get(urn) ?? []), (s) => this.#step(s.urn, () => planned(s)), (s, cause) => this.progress.skip("delete", s.urn, cause.urn));
    if (!this.#o.dryRun) await this.#executor.dropUnusedProviders();
  }

  /** Reads every resource from the service; drift and out-of-band deletions update the state (unless planned). */
  async refresh(): Promise<void> {
    await inDependencyOrder(this.#generator.refreshable(this.#snapshot.resources), () => [], async (r) => {
      await this.#step(r.urn, () => this.#generator.refresh(r));
      if (!this.#o.dryRun) await this.#executor.settleRead(r.urn);
    });
  }
}

/** The Pulumi CLI's warning at the start of an update that finds pending operations (deployment_executor.go), which
 * names `resolve`, the command that resolves them. */
function cliPendingWarning(pending: PendingOperation[], resolve: string): string {
  return `Attempting to deploy or update resources with ${pending.length} pending operations from previous deployment.\n`
    + pending.map((op) => `  * ${op.resource.urn}, interrupted while ${op.type}\n`).join("")
    + "These resources are in an unknown state because the run was interrupted while waiting for changes to these resources to complete. "
    + `Pending creates stay in the state until resolved: \`${resolve}\` finds what each made and prints (or, with --apply, makes) the resolution.`;
}

/** The answer for a resource that failed or was skipped: every output unknown, as for a create still to come. */
function unresolved(urn: string, reg: Registration): Registered {
  return { urn, id: "", outputs: Object.fromEntries(Object.keys(reg.inputs).map((k) => [k, UNKNOWN])), unknown: true };
}

/**
 * Runs functions at most `limit` at a time, the others waiting in order. A function's slot frees when it settles, or
 * earlier when it calls the `release` it is given.
 */
export function limiter(limit: number): <T>(fn: (release: () => void) => Promise<T>) => Promise<T> {
  let active = 0;
  // Read from `head`, not shifted: a program registers every resource at once, and shifting a queue of tens of
  // thousands moves all of them each time a slot frees.
  let queue: ((() => void) | undefined)[] = [];
  let head = 0;
  return async (fn) => {
    // A freed slot passes straight to the first waiter (still counted in `active`), so a caller arriving before
    // that waiter resumes cannot take it too.
    if (active >= limit) await new Promise<void>((resolve) => queue.push(resolve));
    else active++;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const next = queue[head];
      if (next) queue[head++] = undefined;
      else active--;
      if (head > 1024 && head * 2 > queue.length) {
        queue = queue.slice(head);
        head = 0;
      }
      next?.();
    };
    try {
      return await fn(release);
    } finally {
      release();
    }
  };
}

/**
 * Runs fn for each item once everything it waits for has succeeded; an item whose prerequisite failed (or was itself
 * skipped) is skipped, and `skipped` is told which prerequisite kept it from running.
 */
async function inDependencyOrder<T>(items: T[], waitFor: (item: T) => T[], fn: (item: T) => Promise<unknown>, skipped: (item: T, cause: T) => void = () => undefined): Promise<void> {
  const runs = new Map<T, Promise<boolean>>();
  const run = (item: T): Promise<boolean> => {
    let p = runs.get(item);
    if (!p) {
      p = (async () => {
        const prerequisites = waitFor(item);
        const ok = await Promise.all(prerequisites.map(run));
        const failed = ok.indexOf(false);
        if (failed >= 0) {
          skipped(item, prerequisites[failed]!);
          return false;
        }
        return fn(item).then(() => true, () => false);
      })();
      runs.set(item, p);
    }
    return p;
  };
  await Promise.all(items.map(run));
}
