// Progress for people: a line per resource as it changes, then a summary; colour only on a terminal.
import type { Writable } from "node:stream";
import type { EngineEvent, RunResult, StepEvent, StepOp } from "./index.ts";
import { UNKNOWN } from "../plugin/values.ts";

const SYMBOL: Record<StepOp, string> = { create: "+", adopt: "=", update: "~", replace: "+-", delete: "-", same: " ", read: ">", drift: "~", gone: "-" };
const DONE: Record<StepOp, string> = { create: "created", adopt: "adopted", update: "updated", replace: "replaced", delete: "deleted", same: "unchanged", read: "read", drift: "drifted", gone: "gone" };
const PLANNED: Record<StepOp, string> = { create: "create", adopt: "adopt", update: "update", replace: "replace", delete: "delete", same: "same", read: "read", drift: "drift", gone: "gone" };
const DOING: Record<StepOp, string> = { create: "creating", adopt: "adopting", update: "updating", replace: "replacing", delete: "deleting", same: "checking", read: "reading", drift: "reading", gone: "reading" };
const COLOR: Record<StepOp, number> = { create: 32, adopt: 34, update: 33, replace: 35, delete: 31, same: 2, read: 36, drift: 33, gone: 31 };

/** `pulumi-nodejs:dynamic/audience:Scope` reads as `audience:Scope`. */
export function displayType(type: string): string {
  const m = /^pulumi-nodejs:dynamic\/(.+)$/.exec(type);
  return m ? m[1]! : type;
}

export interface RendererOptions {
  out: Writable;
  err: Writable;
  /** A terminal: colours and a line when each step starts. */
  tty: boolean;
}

export function createRenderer({ out, err, tty }: RendererOptions) {
  const paint = (code: number, text: string) => (tty ? `\x1b[${code}m${text}\x1b[0m` : text);
  const line = (e: StepEvent, verb: string) => {
    const keys = e.keys.length ? (e.op === "replace" ? ` [replace: ${e.keys.join(", ")}]` : ` [${e.op === "drift" ? "drift" : "diff"}: ${e.keys.join(", ")}]`) : "";
    const detail = e.detail ? ` (${e.detail})` : "";
    const time = e.ms !== undefined && !e.planned && !["same", "drift", "gone"].includes(e.op) ? ` ${(e.ms / 1000).toFixed(1)}s` : "";
    return `${paint(COLOR[e.op], `${SYMBOL[e.op].padEnd(2)} ${verb.padEnd(10)}`)} ${displayType(e.type)}  ${e.name}${keys}${detail}${time}\n`;
  };
  return {
    event(e: EngineEvent): void {
      if (e.kind === "diagnostic") {
        const text = `${e.severity}: ${e.message}\n`;
        if (e.severity === "error") err.write(paint(31, text));
        else out.write(e.severity === "warning" ? paint(33, text) : text);
        return;
      }
      if (e.phase === "failed") {
        err.write(paint(31, `x  ${`${e.op} failed`.padEnd(10)} ${displayType(e.type)}  ${e.name}: ${e.error}\n`));
        return;
      }
      if (e.op === "same") return;
      if (e.phase === "start" && tty && !e.planned) out.write(paint(2, line(e, DOING[e.op])));
      if (e.phase === "done") out.write(line(e, (e.planned ? PLANNED : DONE)[e.op]));
    },
    summary(r: RunResult): void {
      const planned = r.operation === "preview";
      out.write(`\n${planned ? "Plan" : "Resources"} (${r.project}/${r.stack}, ${r.operation}):\n`);
      const order: StepOp[] = ["create", "adopt", "update", "replace", "delete", "read", "drift", "gone"];
      for (const op of order) {
        const n = r.changes[op];
        if (n) out.write(`    ${paint(COLOR[op], `${SYMBOL[op]} ${n} ${planned ? `to ${PLANNED[op]}` : DONE[op]}`)}\n`);
      }
      out.write(`    ${r.changes.same ?? 0} unchanged\n`);
      const outputs = Object.entries(r.outputs);
      if (outputs.length && r.operation !== "destroy") {
        out.write("Outputs:\n");
        for (const [k, v] of outputs) out.write(`    ${k}: ${r.secretOutputs.includes(k) ? "[secret]" : showValue(v)}\n`);
      }
      out.write(`Duration: ${(r.durationMs / 1000).toFixed(1)}s\n`);
      if (!r.ok) err.write(paint(31, `error: ${r.error}\n`));
    },
  };
}

/** A value for people: not yet known parts (during preview) read "[unknown]". */
function showValue(v: unknown): string {
  return v === UNKNOWN ? "[unknown]" : JSON.stringify(v, (_k, x: unknown) => (x === UNKNOWN ? "[unknown]" : x));
}

/** The result as machines read it: secret outputs masked. */
export function resultJson(r: RunResult): string {
  const outputs = Object.fromEntries(Object.entries(r.outputs).map(([k, v]) => [k, r.secretOutputs.includes(k) ? "[secret]" : v]));
  return `${JSON.stringify({ ...r, outputs }, null, 2)}\n`;
}
