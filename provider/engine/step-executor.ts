// Carries out planned steps: changes the service through the provider and records each finished step in the
// stack's snapshot at once. Calls that change the service are noted as pending (a create's note on disk before the
// call), so a run that dies midway leaves word of what may exist untracked.
import { jsonEqual } from "../../sdk/contract/merge-patch.ts";
import type { EngineExtension } from "./extension.ts";
import { nothingMade, outcomeUnknown, ResourceInitFailedError, type ProviderHost } from "./provider-host.ts";
import { isDefaultProvider, isProviderType } from "./providers.ts";
import { recordedOutputs, type Snapshot } from "./snapshot.ts";
import type { PendingOperation, ResourceState } from "./state-file.ts";
import { protectedDelete, type ReplaceStep, type Step, type UpdateStep } from "./steps.ts";
import type { TimedOperation } from "./timeouts.ts";

/** The provider calls that change the service. */
export type ActingProvider = Pick<ProviderHost, "create" | "update" | "delete">;

/** The provider process serving a resource (its type, through its provider reference). */
type ProviderOf = (type: string, ref: string | undefined) => Promise<ActingProvider>;

export interface StepExecutorOptions {
  snapshot: Snapshot;
  provider: ProviderOf;
  /**
   * Handle pending creates as the Pulumi CLI does: record none with a start time, send no hint, and carry those an
   * earlier run left over to the next state untouched (for `audience pending` or `pulumi refresh` to resolve).
   */
  asCli?: boolean;
  /** How a create that resolves an earlier one tells the provider when that one began. */
  decorateCreate?: EngineExtension["decorateCreate"];
  /** A failure's text as a pending operation records it: the secrets the run knows masked. */
  scrub?: (text: string) => string;
}

export class StepExecutor {
  readonly #snapshot: Snapshot;
  readonly #provider: ProviderOf;
  /** Pending operations this run began. */
  readonly #ownOps = new Set<PendingOperation>();
  readonly #asCli: boolean;
  readonly #decorateCreate: EngineExtension["decorateCreate"];
  readonly #scrub: (text: string) => string;

  constructor(options: StepExecutorOptions) {
    this.#snapshot = options.snapshot;
    this.#provider = options.provider;
    this.#asCli = options.asCli ?? false;
    this.#decorateCreate = options.decorateCreate;
    this.#scrub = options.scrub ?? ((text) => text);
  }

  /**
   * Runs a step; resolves with the state it leaves for the resource (none once deleted), once recorded on disk.
   * `acted` is called once a create, update or delete has made its last call to the service.
   */
  async execute(step: Step, acted?: () => void): Promise<ResourceState | undefined> {
    switch (step.op) {
      case "create":
        // A provider resource is its config: recorded, nothing to create.
        return step.new.custom && !isProviderType(step.new.type) ? this.#create(step.new, acted) : this.#commit(step.new);
      case "adopt":
        return step.imported ? this.#commit(step.new) : this.#create(step.new, acted);
      case "update":
        return isProviderType(step.new.type) ? this.#commit(step.new, step.old) : this.#update(step, acted);
      case "replace":
        return this.#replace(step);
      case "same":
      case "drift":
        // As the state file would hold them (a member left undefined is no member): equal, nothing is written.
        return jsonEqual(step.new, step.old) ? step.new : this.#commit(step.new, step.old);
      case "read":
        return this.#commit(step.new);
      case "delete":
        await this.#delete(step.old, acted);
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

  /**
   * Forgets the operations a previous run left pending that nothing can resolve, once they have been reported.
   * Kept: creates whose outcome is unknown (the next create of the resource looks for what they made first), and
   * updates and deletes (this run's update or delete of the resource sends them again, a refresh reads the truth).
   */
  async forgetInterrupted(): Promise<void> {
    // As the CLI: only creates are carried over (updates and deletes dropped), whatever their outcome.
    const kept = this.#asCli ? (op: PendingOperation) => op.type === "creating" : (op: PendingOperation) => op.type !== "creating" || resolvable(op);
    await Promise.all(this.#snapshot.pendingById().filter(([, op]) => !kept(op)).map(([id]) => this.#snapshot.end(id)));
  }

  /** A refresh read the resource: an earlier update or delete of it whose outcome was unknown is known now. */
  async settleRead(urn: string): Promise<void> {
    const earlier = this.#earlier(urn);
    if (earlier !== undefined) await this.#snapshot.end(earlier);
  }

  /**
   * Resolves a create an earlier run left pending with its outcome unknown, without creating anything (a destroy's or a
   * refresh's, which declare nothing to create): the provider looks for what it made, which is recorded in the state
   * (then deleted like any other by a destroy); one that made nothing is dropped. Answers the resource recorded, if any.
   * A look that fails keeps it pending, with why, and throws.
   */
  async resolvePendingCreate(opId: string, op: PendingOperation): Promise<ResourceState | undefined> {
    const { urn, type, inputs } = op.resource;
    if (!this.#decorateCreate || op.startedAt === undefined) return undefined;
    const host = await this.#provider(type, undefined);
    try {
      const { id, outputs } = await host.create(urn, this.#decorateCreate(type, inputs, op.startedAt, { lookOnly: true }), {});
      const found: ResourceState = { urn, custom: true, type, id, inputs, outputs: recordedOutputs({ inputs }, outputs), dependencies: [] };
      await this.#snapshot.upsert(found, { ends: opId });
      return found;
    } catch (e) {
      if (nothingMade(e)) {
        await this.#snapshot.end(opId);
        return undefined;
      }
      await this.#snapshot.keepPending(opId, this.#scrub((e as Error).message));
      throw e;
    }
  }

  /** Creates an earlier run left pending that a look can resolve, each with the id `end` takes. */
  pendingCreates(): [string, PendingOperation][] {
    return this.#asCli ? [] : this.#snapshot.pendingById().filter(([, op]) => resolvable(op) && !this.#ownOps.has(op));
  }

  /** Creates left pending by an earlier run that this run did not create again. */
  unresolved(): PendingOperation[] {
    return this.#snapshot.pending.filter((op) => resolvable(op) && !this.#ownOps.has(op));
  }

  /** As the Pulumi CLI does: pending creates an earlier run left, which this run carries over untouched. */
  carriedCreates(): PendingOperation[] {
    return this.#asCli ? this.#snapshot.pending.filter((op) => op.type === "creating" && !this.#ownOps.has(op)) : [];
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
  async #commit(resource: ResourceState, old?: ResourceState, ends?: string): Promise<ResourceState> {
    await this.#snapshot.upsert(resource, { renamed: old, ends });
    return resource;
  }

  async #create(planned: ResourceState, acted?: () => void): Promise<ResourceState> {
    const { urn, type, inputs } = planned;
    const host = await this.#provider(type, planned.provider);
    // An earlier run's create of this resource whose outcome is unknown: the provider looks for what it made first.
    const earlier = this.#asCli ? undefined : this.#snapshot.pendingById().find(([, p]) => resolvable(p) && p.resource.urn === urn && !this.#ownOps.has(p));
    // A run that died with its journal lost or cut may have made it, unrecorded: looked for the same way.
    const lookSince = this.#asCli ? undefined : earlier?.[1].startedAt ?? this.#snapshot.interruptedSince;
    const startedAt = lookSince ?? Date.now();
    // On disk before the call: if the process dies mid-create, the next run looks for what it may have made.
    const pending: PendingOperation = this.#asCli ? { resource: { urn, type, inputs }, type: "creating" } : { resource: { urn, type, inputs }, type: "creating", startedAt };
    this.#ownOps.add(pending);
    // One record: the earlier operation gives way to this one, never leaving neither pending.
    const op = this.#snapshot.begin(pending, { ends: earlier?.[0] });
    await op.recorded;
    try {
      const sent = lookSince !== undefined && this.#decorateCreate ? this.#decorateCreate(type, inputs, startedAt) : inputs;
      const { id, outputs } = await host.create(urn, sent, timed(planned, "create"));
      acted?.();
      const created = { ...planned, id, outputs: recordedOutputs(planned, outputs) };
      // The create's end and the resource in one record: a crash cannot keep one without the other.
      await this.#snapshot.upsert(created, { ends: op.id });
      return created;
    } catch (e) {
      // A create whose outcome stays unknown stays pending: the next run resolves it before creating again.
      // (The Pulumi CLI ends a failed create's pending operation whatever the failure.)
      if (outcomeUnknown(e) && !this.#asCli) {
        this.#ownOps.delete(pending);
        await this.#snapshot.keepPending(op.id, this.#scrub((e as Error).message));
      } else if (e instanceof ResourceInitFailedError && e.id) {
        // Created but not initialized: keep it in the state so the next run updates or deletes it.
        await this.#snapshot.upsert({ ...planned, id: e.id, outputs: recordedOutputs(planned, e.outputs), initErrors: e.reasons }, { ends: op.id });
      } else {
        await this.#snapshot.end(op.id);
      }
      throw e;
    }
  }

  async #update({ urn, old, new: planned }: UpdateStep, acted?: () => void): Promise<ResourceState> {
    const host = await this.#provider(planned.type, planned.provider);
    const id = planned.id ?? "";
    // Not awaited: until the update is recorded, the state holds the old inputs and the next run updates again.
    const op = this.#snapshot.begin({ resource: { urn, type: planned.type, id, inputs: planned.inputs }, type: "updating" }, { ends: this.#earlier(urn) });
    try {
      const outputs = await host.update(id, urn, old.outputs, planned.inputs, old.inputs, timed(planned, "update"));
      acted?.();
      return await this.#commit({ ...planned, outputs: recordedOutputs(planned, outputs) }, old, op.id);
    } catch (e) {
      if (e instanceof ResourceInitFailedError) await this.#commit({ ...planned, outputs: recordedOutputs(planned, e.outputs), initErrors: e.reasons }, old, op.id);
      else await this.#failed(op.id, e);
      throw e;
    }
  }

  async #replace({ old, new: planned, deleteBeforeReplace }: ReplaceStep): Promise<ResourceState> {
    // Kept, marked, until its replacement exists: a run that dies in between deletes it next time.
    const retired = deleteBeforeReplace ? undefined : await this.#snapshot.retire(old);
    if (deleteBeforeReplace) await this.#delete(old);
    const created = await this.#create(planned);
    if (retired) await this.#delete(retired);
    return created;
  }

  /** Deletes one resource for real (or only forgets it, when retained or read), then drops it from the state. */
  async #delete(r: ResourceState, acted?: () => void): Promise<void> {
    if (r.protect) throw new Error(protectedDelete(r.urn));
    if (r.custom && r.id && !r.retainOnDelete && !r.external && !isProviderType(r.type)) {
      const host = await this.#provider(r.type, r.provider);
      // Not awaited: until the delete is recorded, the state still holds the resource and the next run deletes it.
      const op = this.#snapshot.begin({ resource: { urn: r.urn, type: r.type, id: r.id, inputs: r.inputs }, type: "deleting" }, { ends: this.#earlier(r.urn) });
      try {
        await host.delete(r.id, r.urn, r.outputs, r.inputs, timed(r, "delete"));
        acted?.();
      } catch (e) {
        await this.#failed(op.id, e);
        throw e;
      }
      await this.#snapshot.remove(r, { ends: op.id });
      return;
    }
    await this.#snapshot.remove(r);
  }

  /** An earlier run's update or delete of the resource whose outcome is unknown: this run's own one resolves it. */
  #earlier(urn: string): string | undefined {
    return this.#snapshot.pendingById().find(([, p]) => p.type !== "creating" && p.resource.urn === urn && !this.#ownOps.has(p))?.[0];
  }

  /** A failed update or delete: one whose outcome is unknown stays pending with why, for the next run to redo. */
  #failed(id: string, e: unknown): Promise<void> {
    return outcomeUnknown(e) ? this.#snapshot.keepPending(id, this.#scrub((e as Error).message)) : this.#snapshot.end(id);
  }
}

/** The resource's customTimeouts for an operation, as the provider takes it. */
function timed(r: ResourceState, op: TimedOperation): { timeout?: number } {
  const seconds = r.customTimeouts?.[op];
  return seconds === undefined ? {} : { timeout: seconds };
}

/** A create from an earlier run that a later create of the same resource can resolve. */
function resolvable(op: PendingOperation): boolean {
  return op.type === "creating" && op.startedAt !== undefined;
}
