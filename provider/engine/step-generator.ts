// Decides what a run does to each resource: from a registration, the resource's old state and the provider's
// answers, the step to take. It asks the provider (check, diff, read) but changes nothing in the service or state.
import { randomUUID } from "node:crypto";
import { leafChanges, shownValue, within } from "./changes.ts";
import type { ReadRequest, Registration } from "./monitor.ts";
import type { PluginHost } from "./plugin-host.ts";
import type { ProviderHost } from "./provider-host.ts";
import type { DiffResult } from "./resource-calls.ts";
import { dependencyOrder, prerequisites } from "./ordering.ts";
import { recordedOutputs } from "./snapshot.ts";
import type { ResourceState } from "./state-file.ts";
import { failureCode, PlanError, type DeleteStep, type DriftStep, type GoneStep, type ReadStep, type SameStep, type Step, type StepOp } from "./steps.ts";
import { isDefaultProvider, isProviderType, pluginArgs, providerTypeOf, servedText, type ProviderVersion } from "./providers.ts";
import { customTimeouts } from "./timeouts.ts";
import { STACK_REFERENCE_TYPE } from "./urn.ts";
import { annotateSecrets, applyIgnoreChanges, changedKeys, containsSecret, markSecret, sameValues, type PropertyMap, type Value } from "../protocol/values.ts";

/** The provider calls that decide a step without changing anything. */
export type PlanningProvider = Pick<ProviderHost, "check" | "diff" | "read">;

/** The calls that check a provider resource's inputs (its config) and compare them with the recorded ones. */
export type ConfigChecker = Pick<PluginHost, "checkConfig" | "diffConfig">;

export interface StepGeneratorOptions {
  /** The provider process serving a resource type through a provider reference (the default one when absent). */
  provider: (type: string, ref: string | undefined) => Promise<PlanningProvider>;
  /** The reference (`<urn>::<id>`) of the default provider that resources of this type record. */
  defaultProvider: (type: string, asked?: ProviderVersion) => Promise<string>;
  /** Outputs of another stack of this project, for StackReference. */
  stackOutputs: (stack: string) => Promise<PropertyMap>;
  /** The id of an existing resource the inputs ask to take over, if they do. */
  adoptedId?: (inputs: PropertyMap) => string | undefined;
  /** The package whose plugin the engine runs, besides dynamic resources (see providerTypeOf). */
  pluginPackage?: string;
  /** What checks the config of provider resources of a type; such resources are recorded unchecked without one. */
  configChecker?: (providerType: string) => Promise<ConfigChecker> | undefined;
}

/** The state a registration asks for; `fields` are what the provider decides (id, outputs) or the plan assumes. */
/** The paths whose change forces a replacement: the provider's own, else its detailed diff's, else its replace keys. */
function forcingPaths(diff: DiffResult): string[] {
  const detailed = diff.detailed ? Object.entries(diff.detailed).filter(([, change]) => change.endsWith("_REPLACE")).map(([path]) => path) : [];
  return diff.forcing?.length ? diff.forcing : detailed.length ? detailed : diff.replaces;
}

function declaredState(urn: string, reg: Registration, fields: Pick<ResourceState, "inputs" | "outputs"> & Partial<ResourceState>): ResourceState {
  const timeouts = customTimeouts(reg.customTimeouts);
  return {
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
    ...(Object.keys(timeouts).length ? { customTimeouts: timeouts } : {}),
  };
}

/** Runs a planning call; a failure becomes a PlanError naming the step it would have been. */
async function planning<T>(op: StepOp, make: () => Promise<T>): Promise<T> {
  try {
    return await make();
  } catch (e) {
    throw e instanceof PlanError ? e : new PlanError((e as Error).message, op, [], failureCode(e));
  }
}

export class StepGenerator {
  readonly #o: StepGeneratorOptions;

  constructor(options: StepGeneratorOptions) {
    this.#o = options;
  }

  /** The step for a resource the program registers, given its old state (found under its URN or an alias). */
  register(urn: string, reg: Registration, old: ResourceState | undefined): Promise<Step> {
    return planning(old ? "update" : "create", async () => {
      customTimeouts(reg.customTimeouts); // a bad one fails the step before any provider call
      return reg.custom ? this.#custom(urn, reg, old) : this.#component(urn, reg, old);
    });
  }

  #component(urn: string, reg: Registration, old: ResourceState | undefined): Step {
    const state = declaredState(urn, reg, { inputs: reg.inputs, outputs: old?.outputs ?? {} });
    return old ? { op: "same", urn, old, new: state } : { op: "create", urn, new: state };
  }

  async #custom(urn: string, reg: Registration, old: ResourceState | undefined): Promise<Step> {
    const name = `${reg.type} "${reg.name}"`;
    if (isProviderType(reg.type)) return this.#providerResource(urn, reg, old);
    if (!providerTypeOf(reg.type, this.#o.pluginPackage)) {
      throw new Error(`${name}: the local engine runs ${servedText(this.#o.pluginPackage)} only; deploy programs using other providers with the Pulumi CLI`);
    }
    const provider = await this.#o.provider(reg.type, reg.provider || undefined);
    const providerRef = reg.provider || await this.#o.defaultProvider(reg.type, reg);
    if (reg.importId && !old) return this.#import(urn, reg, provider, providerRef);
    const desired = old && reg.ignoreChanges.length ? applyIgnoreChanges(old.inputs, reg.inputs, reg.ignoreChanges) : reg.inputs;
    const op = old ? "update" : "create";
    const checked = await provider.check(urn, old?.inputs ?? {}, desired).catch((e: Error) => {
      throw new PlanError(`${name}: ${e.message}`, op, [], failureCode(e));
    });
    if (checked.failures.length > 0) {
      throw new PlanError(`${name}: invalid inputs: ${failureText(checked.failures)}`, op, checked.failures.map((f) => f.property), checked.failures.find((f) => f.code)?.code);
    }
    const inputs = annotateSecrets(checked.inputs, desired);
    // Until the provider answers, a resource's outputs are taken to be its inputs.
    if (!old) {
      const adopted = await this.#adoptable(this.#o.adoptedId?.(inputs), urn, provider, inputs);
      // An adopted resource's id is known before it is taken over: a preview answers it to the program.
      const created = declaredState(urn, reg, { ...(adopted ? { id: adopted } : {}), inputs, outputs: inputs, provider: providerRef });
      return adopted ? { op: "adopt", urn, id: adopted, new: created } : { op: "create", urn, new: created };
    }

    const id = old.id ?? "";
    const diff = await provider.diff(id, urn, old.outputs, inputs, old.inputs, reg.ignoreChanges);
    // A provider's detailed diff names the paths that change; else the engine compares the inputs itself.
    const keys = diff.detailed ? Object.keys(diff.detailed) : changedKeys(old.inputs, inputs);
    const forced = reg.replaceOnChanges.filter((k) => (k === "*" ? keys.length > 0 : keys.some((p) => within(p, k))));
    if (diff.replaces.length > 0 || forced.length > 0) {
      // What forces it, as precisely as the provider tells (`options.type`, not all of `options`).
      const replaces = [...new Set([...forcingPaths(diff), ...forced])];
      const ordered = [...replaces, ...keys.filter((k) => !replaces.some((r) => within(k, r)))];
      if (old.protect) throw new PlanError(`${urn} is protected: replacing it would delete it; remove protect first`, "replace", ordered);
      const replacement = declaredState(urn, reg, { inputs, outputs: inputs, provider: providerRef });
      return { op: "replace", urn, old, new: replacement, keys: ordered, replaces, deleteBeforeReplace: reg.deleteBeforeReplace ?? diff.deleteBeforeReplace };
    }
    // The new state names this registration's provider: under an alias from another provider's type (dynamic ->
    // native), the resource moves to it.
    // A resource that exists but did not finish initializing is updated again, as Pulumi does.
    const changed = diff.changes === "some" || (diff.changes === "unknown" && !sameValues(old.inputs, inputs)) || (old.initErrors?.length ?? 0) > 0;
    if (changed) return { op: "update", urn, old, new: declaredState(urn, reg, { id, inputs, outputs: inputs, provider: providerRef }), keys };
    const kept = declaredState(urn, reg, { id, inputs, outputs: old.outputs, provider: providerRef });
    return { op: "same", urn, old, new: { ...kept, outputs: recordedOutputs(kept, old.outputs) } };
  }

  /**
   * An explicit provider: its inputs are its config, checked by its plugin and recorded; a change of them is an
   * update of the record when the plugin's DiffConfig says so (the resources it manages stay as they are).
   */
  async #providerResource(urn: string, reg: Registration, old: ResourceState | undefined): Promise<Step> {
    const name = `${reg.type} "${reg.name}"`;
    const checker = await this.#o.configChecker?.(reg.type);
    let inputs = reg.inputs;
    if (checker) {
      const checked = await checker.checkConfig(urn, pluginArgs(old?.inputs ?? {}), reg.inputs);
      if (checked.failures.length > 0) {
        throw new PlanError(`${name}: ${checked.failures.map((f) => f.reason).join("; ")}`, old ? "update" : "create", checked.failures.map((f) => f.property));
      }
      inputs = annotateSecrets(checked.inputs, reg.inputs);
    }
    if (!old) return { op: "create", urn, new: declaredState(urn, reg, { id: randomUUID(), inputs, outputs: inputs }) };
    const next = declaredState(urn, reg, { id: old.id ?? randomUUID(), inputs, outputs: inputs });
    let keys = changedKeys(old.inputs, inputs);
    if (checker && keys.length > 0) {
      const diff = await checker.diffConfig(urn, pluginArgs(old.inputs), pluginArgs(inputs));
      if (diff.replaces.length > 0) {
        throw new PlanError(`${name}: a change of ${diff.replaces.join(", ")} replaces the provider and every resource it manages, which the local engine does not do; run it with the Pulumi CLI`, "replace", diff.replaces);
      }
      keys = diff.changes === "none" ? [] : diff.diffs.length > 0 ? diff.diffs : keys;
    }
    return keys.length > 0 ? { op: "update", urn, old, new: next, keys } : { op: "same", urn, old, new: next };
  }

  /**
   * The id an adoption takes over, or undefined when the provider reads nothing there (deleted by hand): its create
   * then makes a new one, and the plan says create, as the run does. A read that fails decides nothing: the create does.
   */
  async #adoptable(id: string | undefined, urn: string, provider: PlanningProvider, inputs: PropertyMap): Promise<string | undefined> {
    if (id === undefined) return undefined;
    const found = await provider.read(id, urn, inputs, inputs).catch(() => ({ id }));
    return found.id ? id : undefined;
  }

  /**
   * The `import` option: the resource is read by its id alone, the program's inputs are checked against what was
   * read and must not differ from it; then it is recorded as a create would have recorded it.
   */
  async #import(urn: string, reg: Registration, provider: PlanningProvider, providerRef: string): Promise<Step> {
    const name = `${reg.type} "${reg.name}"`;
    const found = await provider.read(reg.importId, urn);
    if (!found.id) throw new PlanError(`${name}: no resource with id ${reg.importId} to import`, "adopt");
    const readInputs = found.inputs ?? {};
    const checked = await provider.check(urn, readInputs, reg.inputs);
    if (checked.failures.length > 0) {
      throw new PlanError(`${name}: invalid inputs: ${failureText(checked.failures)}`, "adopt", checked.failures.map((f) => f.property));
    }
    const inputs = annotateSecrets(checked.inputs, reg.inputs);
    const diff = await provider.diff(found.id, urn, found.outputs, inputs, readInputs, []);
    if (diff.changes === "some") {
      const keys = diff.detailed ? Object.keys(diff.detailed) : changedKeys(readInputs, inputs);
      // Each differing member with both values (secrets masked), so the program can be made to match.
      const values = leafChanges(readInputs, inputs).filter((c) => keys.some((k) => within(c.path, k) || within(k, c.path)));
      const at = values.length ? values.map((c) => `${c.path} (declared ${shownValue(c.new)}, found ${shownValue(c.old)})`).join(", ") : keys.join(", ");
      throw new PlanError(`${name}: the program's inputs differ from resource ${found.id} at ${at}: make them match it to import it`, "adopt", keys);
    }
    const state = declaredState(urn, reg, { id: found.id, inputs, outputs: markSecret(annotateSecrets(found.outputs, inputs), reg.additionalSecretOutputs), provider: providerRef });
    return { op: "adopt", urn, id: found.id, imported: true, new: state };
  }

  /** The step for a resource the program reads without managing it (`.get()`, StackReference). */
  read(urn: string, req: ReadRequest): Promise<ReadStep> {
    return planning("read", async () => {
      const placed = { ...(req.parent ? { parent: req.parent } : {}), dependencies: req.dependencies };
      if (req.type === STACK_REFERENCE_TYPE) {
        // A StackReference reads the outputs another stack of this project keeps in its state file.
        const name = String(req.inputs["name"] ?? req.id);
        const outputs = await this.#o.stackOutputs(name);
        const state: PropertyMap = { name, outputs, secretOutputNames: Object.keys(outputs).filter((k) => containsSecret(outputs[k] as Value)) };
        return { op: "read", urn, from: "stack", id: name, new: { urn, custom: true, external: true, type: req.type, id: name, inputs: req.inputs, outputs: state, ...placed } };
      }
      if (!providerTypeOf(req.type, this.#o.pluginPackage)) throw new Error(`${req.type} "${req.name}": the local engine reads ${servedText(this.#o.pluginPackage)} and stack references only`);
      const provider = await this.#o.provider(req.type, req.provider || undefined);
      const found = await provider.read(req.id, urn, {}, req.inputs);
      if (!found.id) throw new Error(`${req.type} "${req.name}": no resource with id ${req.id}`);
      const outputs = markSecret(annotateSecrets(found.outputs, req.inputs), req.additionalSecretOutputs);
      const state: ResourceState = { urn, custom: true, external: true, type: req.type, id: found.id, inputs: req.inputs, outputs, ...placed, provider: req.provider || await this.#o.defaultProvider(req.type, req) };
      return { op: "read", urn, from: "resource", id: req.id, new: state };
    });
  }

  /** Resources refresh reads: the stack's resources that exist, of the types the engine runs. */
  refreshable(resources: readonly ResourceState[]): ResourceState[] {
    return resources.filter((r) => r.custom && r.id && !r.delete && providerTypeOf(r.type, this.#o.pluginPackage) !== undefined);
  }

  /**
   * What refresh finds for one resource: gone, drifted (a declared property no longer holds) or the same. Server-
   * computed outputs (timestamps, signed URLs) move on their own: they are recorded, but are no drift.
   */
  refresh(r: ResourceState): Promise<DriftStep | SameStep | GoneStep> {
    return planning("drift", async () => {
      const provider = await this.#o.provider(r.type, r.provider);
      const read = await provider.read(r.id ?? "", r.urn, r.outputs, r.inputs);
      if (!read.id) return { op: "gone", urn: r.urn, old: r };
      const outputs = recordedOutputs(r, read.outputs, r.outputs);
      const inputs = read.inputs ? annotateSecrets(read.inputs, r.inputs) : r.inputs;
      const keys = read.inputs ? changedKeys(r.inputs, inputs) : changedKeys(r.outputs, outputs);
      const moved = read.id !== r.id || changedKeys(r.outputs, outputs).length > 0 || keys.length > 0;
      const found = moved ? { ...r, id: read.id, inputs, outputs } : r;
      return keys.length ? { op: "drift", urn: r.urn, old: r, new: found, keys } : { op: "same", urn: r.urn, old: r, new: found };
    });
  }

  /** Deletes of resources the program no longer declares, and of old copies left by a replace. */
  undeclared(resources: readonly ResourceState[], registered: ReadonlySet<string>): DeleteStep[] {
    return this.#deletes(resources.filter((r) => r.delete || (!registered.has(r.urn) && !isDefaultProvider(r))));
  }

  /** Deletes of every resource of the stack; refused while any is protected. */
  destroy(resources: readonly ResourceState[]): DeleteStep[] {
    const protectedOnes = resources.filter((r) => r.protect);
    if (protectedOnes.length > 0) {
      // One resource per line: a stack adopted by `generate` protects every resource, and one line of them all is unreadable.
      throw new Error([
        `cannot destroy: ${protectedOnes.length} protected resource${protectedOnes.length === 1 ? "" : "s"}:`,
        ...protectedOnes.map((r) => `  ${r.urn}`),
        "Set protect: false on them (or remove it) and run up first; nothing was deleted.",
      ].join("\n"));
    }
    return this.#deletes(resources.filter((r) => !isDefaultProvider(r)));
  }

  /** Delete steps in reverse dependency order, each naming the deletes that go before it. */
  #deletes(resources: ResourceState[]): DeleteStep[] {
    const dependents = new Map<string, string[]>();
    for (const x of resources) {
      for (const urn of prerequisites(x)) {
        if (urn === x.urn) continue;
        const list = dependents.get(urn);
        if (list) list.push(x.urn);
        else dependents.set(urn, [x.urn]);
      }
    }
    return dependencyOrder(resources)
      .reverse()
      .map((r) => ({ op: "delete", urn: r.urn, old: r, after: dependents.get(r.urn) ?? [] }));
  }
}

/** A check's failures for people: each reason under the property it is about (once), `; ` between them. */
function failureText(failures: readonly { property: string; reason: string }[]): string {
  return failures.map(({ property, reason }) => (property === "" || reason.startsWith(property) ? reason : `${property}: ${reason}`)).join("; ");
}
