// One run of preview, up, refresh or destroy: turns registrations into steps, runs them through the provider,
// and records each finished step in the state at once.
import { randomUUID } from "node:crypto";
import { stripVTControlCharacters } from "node:util";
import { InitError, type DynamicProviderHost } from "./provider-host.ts";
import type { MonitorHandler, ReadRequest, Registration, Severity } from "./monitor.ts";
import { prerequisites, type PendingOperation, type ResourceState, type StackState } from "./state.ts";
import { annotateSecrets, applyIgnoreChanges, changedKeys, containsSecret, markSecret, sameValues, type PropertyMap, type Value } from "./values.ts";

export type Operation = "preview" | "up" | "refresh" | "destroy";
/** create/update/replace/delete/same/read as `pulumi up` shows them; drift and gone are what refresh finds. */
export type StepOp = "create" | "update" | "replace" | "delete" | "same" | "read" | "drift" | "gone";

export interface StepEvent {
  kind: "step";
  phase: "start" | "done" | "failed";
  op: StepOp;
  urn: string;
  type: string;
  name: string;
  /** Properties that change (or drifted); for a replace, the ones forcing it come first. */
  keys: string[];
  /** Set when nothing is changed for real: preview, or a refresh that only reports. */
  planned: boolean;
  detail?: string;
  error?: string;
  ms?: number;
}

export interface DiagnosticEvent {
  kind: "diagnostic";
  severity: Severity;
  message: string;
  urn?: string;
}

export type EngineEvent = StepEvent | DiagnosticEvent;

const STACK_TYPE = "pulumi:pulumi:Stack";
const PROVIDER_TYPE = "pulumi:providers:pulumi-nodejs";
const STACK_REFERENCE_TYPE = "pulumi:pulumi:StackReference";

export function urnName(urn: string): string {
  return urn.slice(urn.lastIndexOf("::") + 2);
}

export function urnType(urn: string): string {
  const qualified = urn.split("::")[2] ?? "";
  return qualified.slice(qualified.lastIndexOf("$") + 1);
}

export interface DeploymentOptions {
  project: string;
  stack: string;
  state: StackState;
  dryRun: boolean;
  parallel: number;
  provider: () => Promise<DynamicProviderHost>;
  /** Outputs of another stack of this project, for StackReference. */
  stackOutputs: (stack: string) => Promise<PropertyMap>;
  emit: (event: EngineEvent) => void;
}

export class Deployment implements MonitorHandler {
  readonly steps: StepEvent[] = [];
  readonly diagnostics: DiagnosticEvent[] = [];
  failed = false;
  stackOutputs: PropertyMap | undefined;
  readonly #o: DeploymentOptions;
  readonly #registered = new Set<string>();
  readonly #completions = new Map<string, Promise<void>>();
  /** Resources of this run, as the program declared them (preview keeps them here only). */
  readonly #news = new Map<string, ResourceState>();
  #providerRef: Promise<string> | undefined;

  constructor(options: DeploymentOptions) {
    this.#o = options;
  }

  get #state(): StackState {
    return this.#o.state;
  }

  #emit(event: EngineEvent): void {
    if (event.kind === "step" && event.phase !== "start") this.steps.push(event);
    if (event.kind === "diagnostic") this.diagnostics.push(event);
    this.#o.emit(event);
  }

  /** Runs a step, reporting its start and its end (done or failed). */
  async #step<T>(op: StepOp, urn: string, keys: string[], body: () => Promise<T>, detail?: string): Promise<T> {
    const base = { kind: "step" as const, op, urn, type: urnType(urn), name: urnName(urn), keys, planned: this.#o.dryRun, ...(detail ? { detail } : {}) };
    const started = Date.now();
    this.#emit({ ...base, phase: "start" });
    try {
      const result = await body();
      this.#emit({ ...base, phase: "done", ms: Date.now() - started });
      return result;
    } catch (e) {
      this.failed = true;
      this.#emit({ ...base, phase: "failed", error: (e as Error).message, ms: Date.now() - started });
      throw e;
    }
  }

  /** Reports a step that failed before it started (bad inputs, an unreadable resource). */
  #fail(op: StepOp, urn: string, keys: string[], message: string): Error {
    this.failed = true;
    this.#emit({ kind: "step", phase: "failed", op, urn, type: urnType(urn), name: urnName(urn), keys, planned: this.#o.dryRun, error: message });
    return new Error(message);
  }

  log(severity: Severity, message: string, urn: string): void {
    if (severity === "error") this.failed = true;
    if (severity !== "debug") this.#emit({ kind: "diagnostic", severity, message: stripVTControlCharacters(message), ...(urn ? { urn } : {}) });
  }

  #urnFor(type: string, name: string, parent: string): string {
    const parentType = parent ? (parent.split("::")[2] ?? "") : STACK_TYPE;
    const qualified = parentType === STACK_TYPE ? type : `${parentType}$${type}`;
    return `urn:pulumi:${this.#o.stack}::${this.#o.project}::${qualified}::${name}`;
  }

  async register(reg: Registration): Promise<{ urn: string; id: string; outputs: PropertyMap }> {
    const urn = this.#urnFor(reg.type, reg.name, reg.parent);
    if (this.#registered.has(urn)) throw new Error(`duplicate resource URN ${urn}: give each resource a unique name`);
    this.#registered.add(urn);
    let finish!: () => void;
    this.#completions.set(urn, new Promise<void>((resolve) => (finish = resolve)));
    try {
      // Dependencies finish first; a failed one fails this one too.
      const deps = [...reg.dependencies, ...Object.values(reg.propertyDependencies).flat()];
      await Promise.all(deps.map((d) => this.#completions.get(d)));
      const failedDep = deps.find((d) => this.steps.some((s) => s.urn === d && s.phase === "failed"));
      if (failedDep) throw new Error(`${urn}: not attempted because ${failedDep} failed`);
      let old = this.#state.find(urn);
      for (const alias of reg.aliasUrns) old ??= this.#state.find(alias);
      try {
        return reg.custom ? await this.#registerCustom(urn, reg, old) : await this.#registerComponent(urn, reg, old);
      } catch (e) {
        if (!this.steps.some((s) => s.urn === urn && s.phase === "failed")) this.#fail(old ? "update" : "create", urn, [], (e as Error).message);
        throw e;
      }
    } finally {
      finish();
    }
  }

  #record(urn: string, reg: Registration, fields: Pick<ResourceState, "inputs" | "outputs"> & Partial<ResourceState>): ResourceState {
    const record: ResourceState = {
      urn,
      custom: reg.custom,
      type: reg.type,
      ...fields,
      ...(reg.parent ? { parent: reg.parent } : {}),
      dependencies: reg.dependencies,
      ...(Object.keys(reg.propertyDependencies).length ? { propertyDependencies: reg.propertyDependencies } : {}),
      ...(reg.protect ? { protect: true } : {}),
      ...(reg.retainOnDelete ? { retainOnDelete: true } : {}),
      ...(reg.deleteBeforeReplace ? { deleteBeforeReplace: true } : {}),
      ...(reg.additionalSecretOutputs.length ? { additionalSecretOutputs: reg.additionalSecretOutputs } : {}),
      ...(reg.ignoreChanges.length ? { ignoreChanges: reg.ignoreChanges } : {}),
      ...(reg.sourcePosition ? { sourcePosition: reg.sourcePosition } : {}),
    };
    this.#news.set(urn, record);
    return record;
  }

  /** Saves a resource's new state; under an alias, the old entry gives way to the new URN. */
  async #commit(record: ResourceState, old: ResourceState | undefined): Promise<void> {
    if (this.#o.dryRun) return;
    if (old && old.urn !== record.urn) this.#state.resources = this.#state.resources.filter((r) => r !== old);
    await this.#state.upsert(record);
  }

  async #registerComponent(urn: string, reg: Registration, old: ResourceState | undefined) {
    const record = this.#record(urn, reg, { inputs: reg.inputs, outputs: old?.outputs ?? {} });
    await this.#step(old ? "same" : "create", urn, [], () => this.#commit(record, old));
    return { urn, id: "", outputs: {} };
  }

  /** Resolves once every registration received so far has finished. */
  async settled(): Promise<void> {
    await Promise.all(this.#completions.values());
  }

  async registerOutputs(urn: string, outputs: PropertyMap): Promise<void> {
    const record = this.#news.get(urn);
    if (!record) throw new Error(`outputs for ${urn}, which this program did not register`);
    record.outputs = outputs;
    if (urnType(urn) === STACK_TYPE) this.stackOutputs = outputs;
    if (!this.#o.dryRun) await this.#state.upsert(record);
  }

  async invoke(token: string, args: PropertyMap): Promise<PropertyMap> {
    if (token === "pulumi:pulumi:getResource") {
      const urn = String(args["urn"] ?? "");
      const found = this.#news.get(urn) ?? this.#state.find(urn);
      if (!found) throw new Error(`pulumi:pulumi:getResource: no resource ${urn} in this stack`);
      return { urn, id: found.id ?? "", state: found.outputs };
    }
    throw new Error(`function ${token} is not served by the local engine: a dynamic provider has no functions, so lookups run in the program`);
  }

  async read(req: ReadRequest): Promise<{ urn: string; outputs: PropertyMap }> {
    const urn = this.#urnFor(req.type, req.name, req.parent);
    if (this.#registered.has(urn)) throw new Error(`duplicate resource URN ${urn}: give each resource a unique name`);
    this.#registered.add(urn);
    if (req.type === STACK_REFERENCE_TYPE) return this.#readStackReference(urn, req);
    if (!req.type.startsWith("pulumi-nodejs:")) throw this.#fail("read", urn, [], `${req.type} "${req.name}": the local engine reads dynamic resources (pulumi-nodejs) and stack references only`);
    return this.#step("read", urn, [], async () => {
      const host = await this.#o.provider();
      const found = await host.read(req.id, urn, {}, req.inputs);
      if (!found.id) throw new Error(`${req.type} "${req.name}": no resource with id ${req.id}`);
      const outputs = markSecret(annotateSecrets(found.outputs, req.inputs), req.additionalSecretOutputs);
      const record: ResourceState = {
        urn,
        custom: true,
        external: true,
        type: req.type,
        id: found.id,
        inputs: req.inputs,
        outputs,
        ...(req.parent ? { parent: req.parent } : {}),
        dependencies: req.dependencies,
        provider: await this.#defaultProvider(),
      };
      this.#news.set(urn, record);
      if (!this.#o.dryRun) await this.#state.upsert(record);
      return { urn, outputs };
    }, `id ${req.id}`);
  }

  /** A StackReference reads the outputs another stack of this project keeps in its state file. */
  #readStackReference(urn: string, req: ReadRequest): Promise<{ urn: string; outputs: PropertyMap }> {
    return this.#step("read", urn, [], async () => {
      const name = String(req.inputs["name"] ?? req.id);
      const outputs = await this.#o.stackOutputs(name);
      const state: PropertyMap = { name, outputs, secretOutputNames: Object.keys(outputs).filter((k) => containsSecret(outputs[k] as Value)) };
      const record: ResourceState = { urn, custom: true, external: true, type: req.type, id: name, inputs: req.inputs, outputs: state, dependencies: req.dependencies, ...(req.parent ? { parent: req.parent } : {}) };
      this.#news.set(urn, record);
      if (!this.#o.dryRun) await this.#state.upsert(record);
      return { urn, outputs: state };
    }, `stack ${String(req.inputs["name"] ?? req.id)}`);
  }

  /** The default provider every dynamic resource records, as the Pulumi engine creates it implicitly. */
  #defaultProvider(): Promise<string> {
    this.#providerRef ??= (async () => {
      const urn = `urn:pulumi:${this.#o.stack}::${this.#o.project}::${PROVIDER_TYPE}::default`;
      const existing = this.#state.find(urn);
      const record: ResourceState = existing ?? { urn, custom: true, type: PROVIDER_TYPE, id: randomUUID(), inputs: {}, outputs: {}, dependencies: [] };
      if (!existing && !this.#o.dryRun) await this.#state.upsert(record);
      this.#registered.add(urn);
      return `${urn}::${record.id}`;
    })();
    return this.#providerRef;
  }

  async #registerCustom(urn: string, reg: Registration, old: ResourceState | undefined) {
    const name = `${reg.type} "${reg.name}"`;
    if (!reg.type.startsWith("pulumi-nodejs:") || (reg.provider && !reg.provider.includes(`::${PROVIDER_TYPE}::`))) {
      throw new Error(`${name}: the local engine runs dynamic resources (pulumi-nodejs) only; deploy programs using other providers with the Pulumi CLI`);
    }
    if (reg.importId) throw new Error(`${name}: import is not supported for dynamic resources; adopt existing resources through their own inputs`);
    const host = await this.#o.provider();
    const providerRef = await this.#defaultProvider();
    const desired = old && reg.ignoreChanges.length ? applyIgnoreChanges(old.inputs, reg.inputs, reg.ignoreChanges) : reg.inputs;
    const op = old ? "update" : "create";
    const checked = await host.check(urn, old?.inputs ?? {}, desired).catch((e: Error) => {
      throw this.#fail(op, urn, [], `${name}: ${e.message}`);
    });
    if (checked.failures.length > 0) {
      const reasons = checked.failures.map((f) => `${f.property || "(resource)"}: ${f.reason}`).join("; ");
      throw this.#fail(op, urn, checked.failures.map((f) => f.property), `${name}: invalid inputs: ${reasons}`);
    }
    const inputs = annotateSecrets(checked.inputs, desired);
    const outputsFrom = (outs: PropertyMap) => markSecret(annotateSecrets(outs, inputs), reg.additionalSecretOutputs);
    if (!old) return this.#create(urn, reg, inputs, providerRef, outputsFrom);

    const id = old.id ?? "";
    const diff = await host.diff(id, urn, old.outputs, inputs, old.inputs, reg.ignoreChanges);
    const keys = changedKeys(old.inputs, inputs);
    const forced = reg.replaceOnChanges.filter((k) => (k === "*" ? keys.length > 0 : keys.some((p) => p === k || p.startsWith(`${k}.`))));
    const replaces = [...new Set([...diff.replaces, ...forced])];
    // A resource that exists but did not finish initializing is updated again, as Pulumi does.
    const changed = diff.changes === "some" || (diff.changes === "unknown" && !sameValues(old.inputs, inputs)) || (old.initErrors?.length ?? 0) > 0;

    if (replaces.length > 0) {
      const deleteFirst = reg.deleteBeforeReplace ?? diff.deleteBeforeReplace;
      return this.#step("replace", urn, [...replaces, ...keys.filter((k) => !replaces.some((r) => k === r || k.startsWith(`${r}.`)))], async () => {
        if (old.protect) throw new Error(`${urn} is protected: replacing it would delete it; remove protect first`);
        if (this.#o.dryRun) return { urn, id: "", outputs: inputs };
        if (deleteFirst) await this.#delete(old);
        else {
          old.delete = true;
          await this.#state.save();
        }
        const created = await this.#createResource(urn, reg, inputs, providerRef, outputsFrom);
        if (!deleteFirst) await this.#delete(old);
        return created;
      }, deleteFirst ? "delete before replace" : undefined);
    }
    if (changed) {
      return this.#step("update", urn, keys, async () => {
        if (this.#o.dryRun) return { urn, id, outputs: inputs };
        const op: PendingOperation = { resource: { urn, type: reg.type, id, inputs }, type: "updating" };
        await this.#state.begin(op);
        try {
          const outs = await host.update(id, urn, old.outputs, inputs, old.inputs);
          const record = this.#record(urn, reg, { id, inputs, outputs: outputsFrom(outs), provider: old.provider ?? providerRef });
          this.#state.end(op);
          await this.#commit(record, old);
          return { urn, id, outputs: record.outputs };
        } catch (e) {
          this.#state.end(op);
          if (e instanceof InitError) await this.#commit(this.#record(urn, reg, { id, inputs, outputs: outputsFrom(e.outputs), provider: old.provider ?? providerRef, initErrors: e.reasons }), old);
          else await this.#state.save();
          throw e;
        }
      });
    }
    return this.#step("same", urn, [], async () => {
      const record = this.#record(urn, reg, { id, inputs, outputs: outputsFrom(old.outputs), provider: old.provider ?? providerRef });
      await this.#commit(record, old);
      return { urn, id, outputs: record.outputs };
    });
  }

  #create(urn: string, reg: Registration, inputs: PropertyMap, providerRef: string, outputsFrom: (o: PropertyMap) => PropertyMap) {
    return this.#step("create", urn, [], async () => {
      if (this.#o.dryRun) {
        this.#record(urn, reg, { inputs, outputs: inputs });
        return { urn, id: "", outputs: inputs };
      }
      return this.#createResource(urn, reg, inputs, providerRef, outputsFrom);
    });
  }

  async #createResource(urn: string, reg: Registration, inputs: PropertyMap, providerRef: string, outputsFrom: (o: PropertyMap) => PropertyMap) {
    const host = await this.#o.provider();
    // Recorded before the call: if the process dies mid-create, the next run says what may exist untracked.
    const op: PendingOperation = { resource: { urn, type: reg.type, inputs }, type: "creating" };
    await this.#state.begin(op);
    try {
      const { id, outputs } = await host.create(urn, inputs);
      const record = this.#record(urn, reg, { id, inputs, outputs: outputsFrom(outputs), provider: providerRef });
      this.#state.end(op);
      await this.#state.upsert(record);
      return { urn, id, outputs: record.outputs };
    } catch (e) {
      this.#state.end(op);
      // Created but not initialized: keep it in the state so the next run updates or deletes it.
      if (e instanceof InitError && e.id) await this.#state.upsert(this.#record(urn, reg, { id: e.id, inputs, outputs: outputsFrom(e.outputs), provider: providerRef, initErrors: e.reasons }));
      else await this.#state.save();
      throw e;
    }
  }

  /** Deletes one resource for real (or only forgets it, with retainOnDelete), then drops it from the state. */
  async #delete(r: ResourceState): Promise<void> {
    if (r.protect) throw new Error(`${r.urn} is protected: set protect: false and run up before deleting it`);
    if (r.custom && r.id && !r.retainOnDelete && !r.external && r.type !== PROVIDER_TYPE) {
      const host = await this.#o.provider();
      const op: PendingOperation = { resource: { urn: r.urn, type: r.type, id: r.id, inputs: r.inputs }, type: "deleting" };
      await this.#state.begin(op);
      try {
        await host.delete(r.id, r.urn, r.outputs, r.inputs);
      } finally {
        this.#state.end(op);
      }
    }
    await this.#state.remove(r);
  }

  /** After the program: resources it no longer declares go, dependents before what they depend on. */
  async deleteUndeclared(): Promise<void> {
    const doomed = this.#state.resources.filter((r) => r.delete || (!this.#registered.has(r.urn) && r.type !== PROVIDER_TYPE));
    await this.deleteAll(doomed);
    this.#dropUnusedProvider();
  }

  /** Deletes the given resources in reverse dependency order, independent ones in parallel. */
  async deleteAll(resources: ResourceState[]): Promise<void> {
    const dependents = (r: ResourceState) => resources.filter((x) => x !== r && prerequisites(x).includes(r.urn));
    await inDependencyOrder(resources, dependents, this.#o.parallel, (r) =>
      this.#step("delete", r.urn, [], () => (this.#o.dryRun ? Promise.resolve() : this.#delete(r)), r.external ? "read with .get(): forgotten, not deleted" : r.retainOnDelete ? "retained: removed from the state only" : undefined),
    );
    if (!this.#o.dryRun) this.#dropUnusedProvider();
  }

  #dropUnusedProvider(): void {
    if (this.#o.dryRun) return;
    const providers = this.#state.resources.filter((r) => r.type === PROVIDER_TYPE);
    for (const p of providers) {
      const ref = `${p.urn}::${p.id}`;
      if (!this.#state.resources.some((r) => r.provider === ref)) void this.#state.remove(p);
    }
  }

  /** Reads every resource from the service; drift and out-of-band deletions update the state (unless planned). */
  async refresh(): Promise<void> {
    const targets = this.#state.resources.filter((r) => r.custom && r.id && !r.delete && r.type.startsWith("pulumi-nodejs:"));
    await inDependencyOrder(targets, () => [], this.#o.parallel, async (r) => {
      const host = await this.#o.provider();
      const read = await host.read(r.id ?? "", r.urn, r.outputs, r.inputs).catch((e: Error) => {
        throw this.#fail("drift", r.urn, [], e.message);
      });
      if (!read.id) {
        await this.#step("gone", r.urn, [], () => (this.#o.dryRun ? Promise.resolve() : this.#state.remove(r)), "deleted outside this stack");
        return;
      }
      const outputs = markSecret(annotateSecrets(read.outputs, r.outputs), r.additionalSecretOutputs ?? []);
      const inputs = read.inputs ? annotateSecrets(read.inputs, r.inputs) : r.inputs;
      // Drift is a declared property that no longer holds; server-computed outputs (timestamps, signed URLs)
      // move on their own and are only recorded.
      const keys = read.inputs ? changedKeys(r.inputs, inputs) : changedKeys(r.outputs, outputs);
      const moved = read.id !== r.id || changedKeys(r.outputs, outputs).length > 0 || keys.length > 0;
      await this.#step(keys.length ? "drift" : "same", r.urn, keys, async () => {
        if (!this.#o.dryRun && moved) await this.#state.upsert({ ...r, id: read.id, inputs, outputs });
      });
    });
  }
}

/** Runs fn for each item once everything it waits for has succeeded; an item whose prerequisite failed is skipped. */
async function inDependencyOrder<T>(items: T[], waitFor: (item: T) => T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  const runs = new Map<T, Promise<boolean>>();
  let active = 0;
  const queue: (() => void)[] = [];
  const slot = async () => {
    if (active >= limit) await new Promise<void>((resolve) => queue.push(resolve));
    active++;
  };
  const release = () => {
    active--;
    queue.shift()?.();
  };
  const run = (item: T): Promise<boolean> => {
    let p = runs.get(item);
    if (!p) {
      p = (async () => {
        const ok = await Promise.all(waitFor(item).map(run));
        if (!ok.every(Boolean)) return false;
        await slot();
        try {
          await fn(item);
          return true;
        } catch {
          return false;
        } finally {
          release();
        }
      })();
      runs.set(item, p);
    }
    return p;
  };
  await Promise.all(items.map(run));
}
