// A run's progress as events: each step as it starts and ends, and the program's diagnostics. The finished ones
// are kept for the run's result.
import { stripVTControlCharacters } from "node:util";
import { leafChanges, leafValues, type LeafChange } from "./changes.ts";
import type { Severity } from "./monitor.ts";
import { failureCode, stepDetail, stepKeys, type Step, type StepOp } from "./steps.ts";
import { urnName, urnType } from "./urn.ts";

export interface StepEvent {
  kind: "step";
  /** skipped: not attempted because a resource it depends on failed (`cause`). */
  phase: "start" | "done" | "failed" | "skipped";
  op: StepOp;
  urn: string;
  type: string;
  name: string;
  /** Properties that change (or drifted); for a replace, the ones forcing it come first. */
  keys: string[];
  /** Set when nothing is changed for real: preview, or a refresh that only reports. */
  planned: boolean;
  /** A delete that leaves the resource in the service (retainOnDelete, or read with `.get()`): only forgotten. */
  forget?: true;
  /** The values that change, leaf by leaf and masked; for a create or adopt, every input it is created with. */
  changes?: LeafChange[];
  detail?: string;
  error?: string;
  /** What kind of failure `error` is, when the provider says (ProviderError.code): `INVALID_AUTHORIZATION`, `BUILD_FAILED`. */
  code?: string;
  /** The resource whose failure kept this one from running. */
  cause?: string;
  ms?: number;
}

export interface DiagnosticEvent {
  kind: "diagnostic";
  severity: Severity;
  message: string;
  urn?: string;
  /** A passing status, such as a build's (`Target tgt_1: starting`): shown while its step runs, not kept. */
  ephemeral?: true;
}

export type EngineEvent = StepEvent | DiagnosticEvent;

export class Progress {
  readonly steps: StepEvent[] = [];
  readonly diagnostics: DiagnosticEvent[] = [];
  failed = false;
  /** Resources whose step failed or was skipped: asked of every registration's dependencies. */
  readonly #failedUrns = new Set<string>();
  readonly #emit: (event: EngineEvent) => void;
  readonly #planned: boolean;
  /** A text to be shown, with the secrets the run knows masked. */
  readonly #scrub: (text: string) => string;

  constructor(emit: (event: EngineEvent) => void, planned: boolean, scrub: (text: string) => string = (text) => text) {
    this.#emit = emit;
    this.#planned = planned;
    this.#scrub = scrub;
  }

  #report(event: EngineEvent): void {
    if (event.kind === "step" && event.error !== undefined) event = { ...event, error: this.#scrub(event.error) };
    if (event.kind === "step" && event.phase !== "start") this.steps.push(event);
    if (event.kind === "step" && (event.phase === "failed" || event.phase === "skipped")) this.#failedUrns.add(event.urn);
    if (event.kind === "diagnostic") this.diagnostics.push(event);
    this.#emit(event);
  }

  /** Reports a step's start and its end (done, or failed with the error, which is rethrown). */
  async track<T>(step: Step, body: () => Promise<T>): Promise<T> {
    const { urn } = step;
    const detail = stepDetail(step);
    const changes = stepChanges(step);
    const base = {
      kind: "step" as const,
      op: step.op,
      urn,
      type: urnType(urn),
      name: urnName(urn),
      keys: stepKeys(step),
      planned: this.#planned,
      ...(forgets(step) ? { forget: true as const } : {}),
      ...(changes.length ? { changes } : {}),
      ...(detail ? { detail } : {}),
    };
    const started = Date.now();
    this.#report({ ...base, phase: "start" });
    try {
      const result = await body();
      this.#report({ ...base, phase: "done", ms: Date.now() - started });
      return result;
    } catch (e) {
      this.failed = true;
      const code = failureCode(e);
      this.#report({ ...base, phase: "failed", error: (e as Error).message, ...(code ? { code } : {}), ms: Date.now() - started });
      throw e;
    }
  }

  /** Reports a step that failed before it started (bad inputs, an unreadable resource). */
  fail(op: StepOp, urn: string, keys: string[], message: string, code?: string): void {
    this.failed = true;
    this.#report({ kind: "step", phase: "failed", op, urn, type: urnType(urn), name: urnName(urn), keys, planned: this.#planned, error: message, ...(code ? { code } : {}) });
  }

  /** Reports a resource not attempted because one it depends on failed or was skipped itself. */
  skip(op: StepOp, urn: string, cause: string): void {
    this.failed = true;
    this.#report({ kind: "step", phase: "skipped", op, urn, type: urnType(urn), name: urnName(urn), keys: [], planned: this.#planned, cause });
  }

  /** Whether a step of this resource failed, or was skipped, in this run. */
  hasFailed(urn: string): boolean {
    return this.#failedUrns.has(urn);
  }

  log(severity: Severity, message: string, urn: string, ephemeral = false): void {
    // Kept nowhere: the Pulumi runtime sends several for each resource.
    if (severity === "debug" && !ephemeral) return;
    const event: DiagnosticEvent = { kind: "diagnostic", severity, message: this.#scrub(stripVTControlCharacters(message)), ...(urn ? { urn } : {}) };
    if (ephemeral && severity !== "error") this.#emit({ ...event, ephemeral: true });
    else {
      if (severity === "error") this.failed = true;
      this.#report(event);
    }
  }
}

/** A delete of a resource kept in the service (retainOnDelete, or read with `.get()`) only forgets it. */
function forgets(step: Step): boolean {
  return step.op === "delete" && Boolean(step.old.retainOnDelete || step.old.external);
}

/** The leaves a step changes; a create or adopt lists every input, as `--diff` shows them. */
function stepChanges(step: Step): LeafChange[] {
  switch (step.op) {
    case "update":
      return leafChanges(step.old.inputs, step.new.inputs);
    case "drift": {
      // Drift is in the inputs when the provider reads them back, else in the outputs.
      const inputs = leafChanges(step.old.inputs, step.new.inputs);
      return inputs.length ? inputs : leafChanges(step.old.outputs, step.new.outputs);
    }
    case "replace":
      return leafChanges(step.old.inputs, step.new.inputs, step.replaces);
    case "create":
    case "adopt":
      return step.new.custom ? leafValues(step.new.inputs, "new") : [];
    default:
      return [];
  }
}
