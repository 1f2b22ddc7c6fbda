// Background builds: new -> starting -> running -> ready (or error), progressing per family immediately,
// after a duration, or only when advanced through the control plane. A change re-runs the resource and
// everything downstream of it. Whether preview holds a build, and who is mailed as one finishes, is the family's.
import { now } from "./clock.ts";
import { copyJson } from "./json.ts";
import type { BuildEvent, Doc, StoredResource } from "./model.ts";
import { singular } from "./nouns.ts";
import type { ServiceState } from "./state.ts";
import { StorageError } from "./store.ts";

/** `immediate`: ready before the request is answered; a number: total build time in ms; `manual`: advanced on request. */
export type BuildMode = "immediate" | "manual" | number;
export type BuildSettings = { default?: BuildMode } & Record<string, BuildMode>;

/**
 * Called as a build finishes. It may return server-computed members to store on the resource
 * (e.g. `population_count`); throwing fails the build with the error's message as `status_error`.
 */
export type ReadyListener = (resource: Readonly<StoredResource>) => Doc | void;

export interface BuildHooks {
  onReady(listener: ReadyListener): void;
}

export type { BuildEvent };

/** What builds read of a collection's family: whether it builds, whether preview holds it, who is mailed. */
export interface BuildFamilies {
  of(collection: string): { builds: boolean; previewHoldsBuild: boolean; emulator: { mailOnReady?: boolean } } | undefined;
}
export type EventListener = (event: BuildEvent, resource: Readonly<StoredResource>) => void;

/** How long builds wait to try again after their data directory refused a write. */
const STORAGE_RETRY_MS = 1000;

const STEPS = ["new", "starting", "running", "ready"] as const;
type Step = (typeof STEPS)[number];

function nextStep(resource: StoredResource): Step {
  return STEPS[Math.min(STEPS.indexOf(resource.doc.status as Step) + 1, STEPS.length - 1)] as Step;
}

export class Builds implements BuildHooks {
  private readonly state: ServiceState;
  private readonly families: BuildFamilies;
  private readonly listeners: ReadyListener[] = [];
  private readonly eventListeners: EventListener[] = [];
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(state: ServiceState, families: BuildFamilies, initial?: BuildSettings) {
    this.state = state;
    this.families = families;
    // Progression given at start wins over what a data directory remembers.
    if (initial !== undefined || this.state.setting("builds") === undefined) this.state.setSetting("builds", initial ?? {});
    this.schedule();
  }

  onReady(listener: ReadyListener): void {
    this.listeners.push(listener);
  }

  /** Called after a build fails, or finishes a re-run (a resource that had built before). */
  onEvent(listener: EventListener): void {
    this.eventListeners.push(listener);
  }

  private emit(event: BuildEvent, resource: StoredResource): void {
    for (const listener of this.eventListeners) listener(event, copyJson(resource));
  }

  settings(): BuildSettings {
    return this.state.setting<BuildSettings>("builds") ?? {};
  }

  configure(settings: BuildSettings): void {
    this.state.setSetting("builds", { ...this.settings(), ...settings });
  }

  mode(collection: string): BuildMode {
    const s = this.settings();
    return s[collection] ?? s.default ?? "immediate";
  }

  /** (Re)starts the build of a resource and of everything downstream of it; each waits for its upstream. */
  rerun(resource: StoredResource): StoredResource {
    const id = String(resource.doc.id);
    for (const r of [resource, ...this.state.closure(resource.account_id, id, "downstream")]) this.start(r, { drain: false });
    this.drain();
    this.schedule();
    return this.state.resource(resource.collection, id) ?? resource;
  }

  /**
   * Stores a new resource and starts its build: one built at once is stored as built, in one write rather than as
   * new first.
   */
  create(resource: StoredResource): StoredResource {
    if (this.builds(resource)) return this.start(resource);
    this.state.save(resource);
    return resource;
  }

  /** Whether starting a resource's build does anything: it builds, and is neither archived nor the service's own. */
  private builds(resource: StoredResource): boolean {
    return this.families.of(resource.collection)?.builds === true && resource.doc.archived_at == null && resource.doc.managed !== true;
  }

  /** Starts one resource's build, if it builds and is not archived or held by preview; stores it whenever it builds. */
  start(resource: StoredResource, options: { drain?: boolean } = {}): StoredResource {
    if (!this.builds(resource)) return resource;
    const family = this.families.of(resource.collection);
    const doc = resource.doc;
    this.transition(resource, "new");
    if (family?.previewHoldsBuild === true && doc.preview === true) {
      delete resource.build;
      this.state.save(resource);
      return resource;
    }
    const mode = this.mode(resource.collection);
    resource.build = typeof mode === "number" ? { duration: mode, due: Date.now() + mode / 3 } : {};
    const draining = options.drain ?? true;
    // One that would run at once is run as drain runs it, without being stored at `new` first: one write, not two.
    if (draining && mode === "immediate" && !this.waiting(resource)) this.runToEnd(resource);
    else this.state.save(resource);
    if (draining) {
      this.drain();
      this.schedule();
    }
    return this.state.resource(resource.collection, String(doc.id)) ?? resource;
  }

  /**
   * Moves a building resource one step on, or straight to `to`; `error` fails it. `force` moves it even while
   * an upstream resource is still building (otherwise it waits at `new`). Returns whether it moved.
   */
  advance(resource: StoredResource, options: { to?: Step | "error"; error?: string; force?: boolean } = {}): boolean {
    if (!resource.build || (options.to !== undefined && resource.doc.status === options.to)) return false;
    if (options.error !== undefined || options.to === "error") {
      this.fail(resource, options.error ?? "The build failed");
    } else {
      if (!options.force && this.waiting(resource)) return false;
      do this.step(resource); while (options.to && resource.build && resource.doc.status !== options.to);
    }
    this.drain();
    this.schedule();
    return true;
  }

  /** A new build waits while a resource it reads from is still building (unless that one reads from it too). */
  waiting(resource: StoredResource): boolean {
    if (resource.doc.status !== "new") return false;
    const id = String(resource.doc.id);
    return this.state.upstreamOf(resource).some((u) => {
      const upstream = this.state.resource(u.collection, u.id);
      if (upstream === undefined || upstream.account_id !== resource.account_id || upstream.build === undefined || u.id === id) return false;
      return !this.state.closure(resource.account_id, u.id, "upstream").some((r) => r.doc.id === id);
    });
  }

  /** Runs every immediate build whose upstream has finished, until none is left to run. */
  private drain(): void {
    for (let progress = true; progress;) {
      progress = false;
      for (const r of this.pending()) {
        if (this.mode(r.collection) !== "immediate" || this.waiting(r)) continue;
        this.runToEnd(r);
        progress = true;
      }
    }
  }

  /** Runs an immediate build to its end. Nothing can see the steps before the last: they are not stored one by one. */
  private runToEnd(resource: StoredResource): void {
    for (let next = nextStep(resource); next !== "ready"; next = nextStep(resource)) this.transition(resource, next);
    this.step(resource);
  }

  /** Builds in progress (any account), oldest first. */
  pending(): StoredResource[] {
    return this.state.building();
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private step(resource: StoredResource): void {
    const next = nextStep(resource);
    if (next !== "ready") {
      this.transition(resource, next);
      if (resource.build?.duration !== undefined) resource.build.due = Date.now() + resource.build.duration / 3;
      this.state.save(resource);
      return;
    }
    let computed: Doc = {};
    try {
      for (const listener of this.listeners) computed = { ...computed, ...(listener(resource) ?? {}) };
    } catch (error) {
      this.fail(resource, error instanceof Error ? error.message : String(error));
      return;
    }
    Object.assign(resource.doc, computed);
    const rebuilt = resource.doc.last_updated_output_at != null;
    this.transition(resource, "ready");
    resource.doc.last_updated_output_at = resource.doc.status_changed_at;
    resource.doc.last_read_input_at = resource.doc.status_changed_at;
    delete resource.build;
    this.state.save(resource);
    if (this.families.of(resource.collection)?.emulator.mailOnReady === true) this.mail(resource);
    if (rebuilt) this.emit("resource.ready_with_update", resource);
  }

  private fail(resource: StoredResource, message: string): void {
    this.transition(resource, "error");
    resource.doc.status_error = message;
    delete resource.build;
    this.state.save(resource);
    this.emit("resource.errored", resource);
  }

  private transition(resource: StoredResource, status: Step | "error"): void {
    const doc = resource.doc;
    if (doc.status !== status) doc.status_changed_at = now();
    doc.status = status;
    doc.status_error = null;
  }

  private mail(resource: StoredResource): void {
    const account = this.state.account(resource.account_id);
    if (!account) return;
    const noun = singular(resource.collection);
    this.state.send({
      account_id: account.id, to: account.owner_email, resource_type: resource.collection, resource_id: String(resource.doc.id),
      subject: `Your ${noun} "${String(resource.doc.name)}" has finished building`,
      text: `The ${noun} ${String(resource.doc.name)} (${String(resource.doc.id)}) is ready.`,
    });
  }

  /** Arms one timer for the earliest timed step. */
  private schedule(): void {
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    const dues = this.pending().map((r) => r.build?.due).filter((d): d is number => d !== undefined);
    if (dues.length === 0) return;
    const wait = Math.max(0, Math.min(...dues) - Date.now());
    this.timer = setTimeout(() => this.tick(), wait);
    this.timer.unref();
  }

  private tick(): void {
    try {
      this.advanceDue();
    } catch (error) {
      if (!(error instanceof StorageError)) throw error;
      // Nothing of this step was kept: the builds wait where they were and try again a little later.
      console.error("The data directory refused a build's write:", error.cause ?? error);
      if (!this.closed) (this.timer = setTimeout(() => this.tick(), STORAGE_RETRY_MS)).unref();
      return;
    }
    this.schedule();
  }

  private advanceDue(): void {
    const at = Date.now();
    this.state.store.transaction(() => {
      for (const resource of this.pending()) {
        const build = resource.build;
        if (build?.due === undefined || build.due > at) continue;
        const waiting = this.waiting(resource);
        if (waiting || build.held) {
          // A held build's clock starts once its upstream has finished.
          build.held = waiting;
          build.due = at + (build.duration ?? 0) / 3;
          this.state.save(resource);
        } else {
          this.step(resource);
        }
      }
      this.drain();
    });
  }
}
