// Carries out planned steps: changes the service through the provider host and records each finished step in the
// stack's snapshot at once. Calls that change the service are noted as pending first, so a run that dies midway
// leaves word of what may exist untracked.
import { isDeepStrictEqual } from "node:util";
import { ResourceInitFailedError, type ProviderHost } from "./provider-host.ts";
import { isDefaultProvider, isProviderType } from "./providers.ts";
import { recordedOutputs, type PendingOperation, type ResourceState, type Snapshot } from "./snapshot.ts";
import type { ReplaceStep, Step, UpdateStep } from "./steps.ts";

/** The provider calls that change the service. */
export type ActingProvider = Pick<ProviderHost, "create" | "update" | "delete">;

/** The provider process serving a resource (its type, through its provider reference). */
type ProviderOf = (type: string, ref: string | undefined) => Promise<ActingProvider>;

export interface StepExecutorOptions {
  snapshot: Snapshot;
  provider: ProviderOf;
}

export class StepExecutor {
  readonly #snapshot: Snapshot;
  readonly #provider: ProviderOf;

  constructor(options: StepExecutorOptions) {
    this.#snapshot = options.snapshot;
    this.#provider = options.provider;
  }

  /** Runs a step; resolves with the state it leaves for the resource (none once deleted). */
  async execute(step: Step): Promise<ResourceState | undefined> {
    switch (step.op) {
      case "create":
        // A provider resource is its config: recorded, nothing to create.
        return step.new.custom && !isProviderType(step.new.type) ? this.#create(step.new) : this.#commit(step.new);
      case "adopt":
        return step.imported ? this.#commit(step.new) : this.#create(step.new);
      case "update":
        return isProviderType(step.new.type) ? this.#commit(step.new, step.old) : this.#update(step);
      case "replace":
        return this.#replace(step);
      case "same":
      case "drift":
        return isDeepStrictEqual(step.new, step.old) ? step.new : this.#commit(step.new, step.old);
      case "read":
        return this.#commit(step.new);
      case "delete":
        await this.#delete(step.old);
        return undefined;
      case "gone":
        await this.#snapshot.remove(step.old);
        return undefined;
    }
  }

  /** Records a resource the engine keeps up to date itself: its default provider, a registration's outputs. */
  async record(resource: ResourceState): Promise<void> {
    await this.#snapshot.upsert(resource);
  }

  /** Forgets the operations a previous run left pending, once they have been reported. */
  async forgetInterrupted(): Promise<void> {
    if (this.#snapshot.pending.length === 0) return;
    this.#snapshot.pending = [];
    await this.#snapshot.save();
  }

  /** Drops default providers no resource refers to any more. */
  async dropUnusedProviders(): Promise<void> {
    const providers = this.#snapshot.resources.filter(isDefaultProvider);
    for (const p of providers) {
      const ref = `${p.urn}::${p.id}`;
      if (!this.#snapshot.resources.some((r) => r.provider === ref)) await this.#snapshot.remove(p);
    }
  }

  /** Saves a resource's new state; under an alias, the old entry gives way to the new URN. */
  async #commit(resource: ResourceState, old?: ResourceState): Promise<ResourceState> {
    await this.#snapshot.upsert(resource, old);
    return resource;
  }

  async #create(planned: ResourceState): Promise<ResourceState> {
    const { urn, type, inputs } = planned;
    const host = await this.#provider(type, planned.provider);
    // Recorded before the call: if the process dies mid-create, the next run says what may exist untracked.
    const op: PendingOperation = { resource: { urn, type, inputs }, type: "creating" };
    await this.#snapshot.begin(op);
    try {
      const { id, outputs } = await host.create(urn, inputs);
      const created = { ...planned, id, outputs: recordedOutputs(planned, outputs) };
      this.#snapshot.end(op);
      await this.#snapshot.upsert(created);
      return created;
    } catch (e) {
      this.#snapshot.end(op);
      // Created but not initialized: keep it in the state so the next run updates or deletes it.
      if (e instanceof ResourceInitFailedError && e.id) await this.#snapshot.upsert({ ...planned, id: e.id, outputs: recordedOutputs(planned, e.outputs), initErrors: e.reasons });
      else await this.#snapshot.save();
      throw e;
    }
  }

  async #update({ urn, old, new: planned }: UpdateStep): Promise<ResourceState> {
    const host = await this.#provider(planned.type, planned.provider);
    const id = planned.id ?? "";
    const op: PendingOperation = { resource: { urn, type: planned.type, id, inputs: planned.inputs }, type: "updating" };
    await this.#snapshot.begin(op);
    try {
      const outputs = await host.update(id, urn, old.outputs, planned.inputs, old.inputs);
      this.#snapshot.end(op);
      return await this.#commit({ ...planned, outputs: recordedOutputs(planned, outputs) }, old);
    } catch (e) {
      this.#snapshot.end(op);
      if (e instanceof ResourceInitFailedError) await this.#commit({ ...planned, outputs: recordedOutputs(planned, e.outputs), initErrors: e.reasons }, old);
      else await this.#snapshot.save();
      throw e;
    }
  }

  async #replace({ old, new: planned, deleteBeforeReplace }: ReplaceStep): Promise<ResourceState> {
    if (deleteBeforeReplace) await this.#delete(old);
    else {
      // Kept, marked, until its replacement exists: a run that dies in between deletes it next time.
      old.delete = true;
      await this.#snapshot.save();
    }
    const created = await this.#create(planned);
    if (!deleteBeforeReplace) await this.#delete(old);
    return created;
  }

  /** Deletes one resource for real (or only forgets it, when retained or read), then drops it from the state. */
  async #delete(r: ResourceState): Promise<void> {
    if (r.protect) throw new Error(`${r.urn} is protected: set protect: false and run up before deleting it`);
    if (r.custom && r.id && !r.retainOnDelete && !r.external && !isProviderType(r.type)) {
      const host = await this.#provider(r.type, r.provider);
      const op: PendingOperation = { resource: { urn: r.urn, type: r.type, id: r.id, inputs: r.inputs }, type: "deleting" };
      await this.#snapshot.begin(op);
      try {
        await host.delete(r.id, r.urn, r.outputs, r.inputs);
      } finally {
        this.#snapshot.end(op);
      }
    }
    await this.#snapshot.remove(r);
  }
}
