// A run's progress as events: each step as it starts and ends, and the program's diagnostics. The finished ones
// are kept for the run's result.
import { stripVTControlCharacters } from "node:util";
import type { Severity } from "./monitor.ts";
import { stepDetail, stepKeys, type Step, type StepOp } from "./steps.ts";
import { urnName, urnType } from "./urn.ts";

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

export class Progress {
  readonly steps: StepEvent[] = [];
  readonly diagnostics: DiagnosticEvent[] = [];
  failed = false;
  readonly #emit: (event: EngineEvent) => void;
  readonly #planned: boolean;

  constructor(emit: (event: EngineEvent) => void, planned: boolean) {
    this.#emit = emit;
    this.#planned = planned;
  }

  #report(event: EngineEvent): void {
    if (event.kind === "step" && event.phase !== "start") this.steps.push(event);
    if (event.kind === "diagnostic") this.diagnostics.push(event);
    this.#emit(event);
  }

  /** Reports a step's start and its end (done, or failed with the error, which is rethrown). */
  async track<T>(step: Step, body: () => Promise<T>): Promise<T> {
    const { op, urn } = step;
    const detail = stepDetail(step);
    const base = { kind: "step" as const, op, urn, type: urnType(urn), name: urnName(urn), keys: stepKeys(step), planned: this.#planned, ...(detail ? { detail } : {}) };
    const started = Date.now();
    this.#report({ ...base, phase: "start" });
    try {
      const result = await body();
      this.#report({ ...base, phase: "done", ms: Date.now() - started });
      return result;
    } catch (e) {
      this.failed = true;
      this.#report({ ...base, phase: "failed", error: (e as Error).message, ms: Date.now() - started });
      throw e;
    }
  }

  /** Reports a step that failed before it started (bad inputs, an unreadable resource). */
  fail(op: StepOp, urn: string, keys: string[], message: string): void {
    this.failed = true;
    this.#report({ kind: "step", phase: "failed", op, urn, type: urnType(urn), name: urnName(urn), keys, planned: this.#planned, error: message });
  }

  /** Whether a step of this resource failed in this run. */
  hasFailed(urn: string): boolean {
    return this.steps.some((s) => s.urn === urn && s.phase === "failed");
  }

  log(severity: Severity, message: string, urn: string): void {
    if (severity === "error") this.failed = true;
    if (severity !== "debug") this.#report({ kind: "diagnostic", severity, message: stripVTControlCharacters(message), ...(urn ? { urn } : {}) });
  }
}
