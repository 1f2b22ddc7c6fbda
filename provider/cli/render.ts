// Progress for people: a line per resource as it changes with the values it changes (a preview's at its end), then
// a Diagnostics section holding each failure once under its resource, then a summary (neither lines nor summary
// for a preview whose program failed: what it would plan is not known). Colour and live lines only on a terminal.
import type { Writable } from "node:stream";
import { shownValue, type LeafChange } from "../engine/changes.ts";
import type { DiagnosticEvent, EngineEvent, RunResult, StepEvent, StepOp } from "../engine/index.ts";
import { STACK_TYPE, urnName, urnType } from "../engine/urn.ts";
import type { Value } from "../protocol/values.ts";
import { wantsColor } from "./terminal.ts";

/** How a step reads: its operation, or `forget` for a delete that leaves the resource in the service. */
type Shown = StepOp | "forget";
const shown = (e: StepEvent): Shown => (e.forget ? "forget" : e.op);

/** An adoption reads as Pulumi's `= import`: an existing resource taken over, not created. */
const SYMBOL: Record<Shown, string> = { create: "+", adopt: "=", update: "~", replace: "+-", delete: "-", forget: "-", same: " ", read: ">", drift: "~", gone: "-" };
const DONE: Record<Shown, string> = { create: "created", adopt: "imported", update: "updated", replace: "replaced", delete: "deleted", forget: "forgotten", same: "unchanged", read: "read", drift: "drifted", gone: "gone" };
const PLANNED: Record<Shown, string> = { create: "create", adopt: "import", update: "update", replace: "replace", delete: "delete", forget: "forget", same: "same", read: "read", drift: "drift", gone: "gone" };
const DOING: Record<Shown, string> = { create: "creating", adopt: "importing", update: "updating", replace: "replacing", delete: "deleting", forget: "forgetting", same: "checking", read: "reading", drift: "reading", gone: "reading" };
const COLOR: Record<Shown, number> = { create: 32, adopt: 34, update: 33, replace: 35, delete: 31, forget: 31, same: 2, read: 36, drift: 33, gone: 31 };
/** Values longer than this are shortened unless `--diff` asks for whole values. */
const SHORT = 60;

/** `pulumi-nodejs:dynamic/audience:Scope` reads as `audience:Scope`. */
function displayType(type: string): string {
  const m = /^pulumi-nodejs:dynamic\/(.+)$/.exec(type);
  return m ? m[1]! : type;
}

export interface RendererOptions {
  out: Writable;
  err: Writable;
  /** A terminal: colours (unless NO_COLOR) and a live line per running step. */
  tty: boolean;
  /** Whole values in plans, not shortened; every input of a create. */
  diff?: boolean;
  /** Keep the program's stack traces in its errors. */
  debug?: boolean;
  /** Off a terminal: how long a step runs before its start line, and between its "still running" lines. */
  startAfterMs?: number;
  intervalMs?: number;
  /** The environment NO_COLOR is read from. */
  env?: NodeJS.ProcessEnv;
  /**
   * The command that sets config in the CLI the user runs (`audience config set`): it stands for the
   * `pulumi config set` that Pulumi's runtime names in a program's hints. Absent, the hints stay as written.
   */
  configCommand?: string;
}

/** A value for people: masked parts bare, long values shortened unless whole ones are asked for. */
function showValue(v: Value | undefined, whole = false): string {
  const text = shownValue(v);
  return whole || text.length <= SHORT || v === undefined ? text : `${text.slice(0, SHORT - 3).trimEnd()}...`;
}

/**
 * A change for people: each side shortened as `showValue` does, but where both are long, around where they first
 * differ, so that a plan of a long text changed in its middle shows the change.
 */
function showChange(old: Value | undefined, now: Value | undefined, whole: boolean): [string, string] {
  const [a, b] = [shownValue(old), shownValue(now)];
  let at = 0;
  while (at < a.length && a[at] === b[at]) at++;
  // Where the usual cut shows the first difference, it is kept.
  if (whole || old === undefined || now === undefined || at < SHORT - 6) return [showValue(old, whole), showValue(now, whole)];
  const start = Math.max(0, at - 20);
  const window = (text: string) => `${start > 0 ? "..." : ""}${text.slice(start, start + SHORT - 6)}${start + SHORT - 6 < text.length ? "..." : ""}`;
  return [window(a), window(b)];
}

/** A program error as a user acts on it: the runtime's stack and inspection noise only under `--debug`. */
function withoutStack(message: string): string {
  return message
    .split("\n")
    .filter((l) => !/^\s+at /.test(l) && !/^\s*(promise: Promise|\{$|\}$)/.test(l))
    .map((l) => l.replace(/^<ref \*\d+> /, "").replace(/ \{$/, ""))
    .join("\n")
    .trim();
}

/** What a failed step says, without repeating the resource it is printed under. */
function failureText(e: StepEvent): string {
  const own = `${e.type} "${e.name}": `;
  const text = e.error ?? "failed";
  return text.startsWith(own) ? text.slice(own.length) : text;
}

interface Running {
  event: StepEvent;
  started: number;
  timer?: NodeJS.Timeout;
  /** The statuses its build went through, as the provider reported them (`tgt_1: new -> starting`). */
  status?: string;
}

/** `Target tgt_1: starting` as the type it names, the subject and the status. */
function parseStatus(message: string): { type: string; subject: string; status: string } | undefined {
  const m = /^(\S+) (.+): (\S+)$/.exec(message);
  return m ? { type: m[1]!, subject: m[2]!, status: m[3]! } : undefined;
}

/** A program's message with Pulumi's `pulumi config set` hint naming the command the user runs instead. */
function withConfigCommand(message: string, command: string | undefined): string {
  return command === undefined ? message : message.replaceAll("`pulumi config set ", `\`${command} `);
}

export function createRenderer({ out, err, tty, diff = false, debug = false, startAfterMs = 0, intervalMs = 30_000, env = process.env, configCommand }: RendererOptions) {
  // NO_COLOR asks for no escape codes at all: no colour, and no live lines (they move the cursor).
  const color = wantsColor(tty, env);
  const live = color;
  const paint = (code: number, text: string) => (color ? `\x1b[${code}m${text}\x1b[0m` : text);
  const head = (e: StepEvent, verb: string, tail = "") => {
    // A replace names what forces it: the lines marked `(forces replace)` when there are lines, so both agree.
    const forcing = e.changes?.some((c) => c.replaces) ? e.changes.filter((c) => c.replaces).map((c) => c.path) : e.keys;
    const keys = e.op === "replace" && forcing.length ? ` [replace: ${forcing.join(", ")}]` : e.op === "drift" && !e.changes?.length && e.keys.length ? ` [drift: ${e.keys.join(", ")}]` : "";
    const detail = e.detail ? ` (${e.detail})` : "";
    return `${paint(COLOR[shown(e)], `${SYMBOL[shown(e)].padEnd(2)} ${verb.padEnd(10)}`)} ${displayType(e.type)}  ${e.name}${keys}${detail}${tail}`;
  };
  const leaves = (e: StepEvent): string => {
    const listed = e.op === "create" || e.op === "adopt" ? (diff ? (e.changes ?? []) : []) : (e.changes ?? []);
    return listed.map((c: LeafChange) => {
      const [old, now] = showChange(c.old, c.new, diff);
      return `    ${c.path}: ${c.old === undefined && (e.op === "create" || e.op === "adopt") ? "" : `${old} -> `}${c.old === undefined ? showValue(c.new, diff) : now}${c.replaces ? "  (forces replace)" : ""}\n`;
    }).join("");
  };
  const doneLine = (e: StepEvent, status?: string) => {
    const time = e.ms !== undefined && !e.planned && !["same", "drift", "gone"].includes(e.op) ? ` ${(e.ms / 1000).toFixed(1)}s` : "";
    return `${head(e, (e.planned ? PLANNED : DONE)[shown(e)], `${time}${status ? ` (${status})` : ""}`)}\n${leaves(e)}`;
  };

  const running = new Map<string, Running>();
  const phases = new Map<string, StepEvent["phase"]>();
  const problems: (StepEvent | DiagnosticEvent)[] = [];
  /** A preview's lines, held until its end: a program that fails leaves no plan to show. */
  const held: string[] = [];
  let liveRows = 0;
  let ticker: NodeJS.Timeout | undefined;

  const elapsed = (r: Running) => `${Math.round((Date.now() - r.started) / 1000)}s`;
  const note = (r: Running) => ` ${elapsed(r)}${r.status ? ` (${r.status})` : ""}`;
  const clearLive = () => {
    if (liveRows) out.write(`\x1b[${liveRows}A\x1b[J`);
    liveRows = 0;
  };
  const drawLive = () => {
    const rows = [...running.values()].map((r) => paint(2, head(r.event, DOING[shown(r.event)], note(r))));
    for (const row of rows) out.write(`${row}\n`);
    liveRows = rows.length;
  };
  /** Writes lines above the live block (on a terminal) or straight out. */
  const write = (text: string) => {
    if (!live) return void out.write(text);
    clearLive();
    out.write(text);
    drawLive();
  };
  const stillRunning = (r: Running) => {
    r.timer = setTimeout(() => {
      out.write(`${head(r.event, DOING[shown(r.event)], ` still running,${note(r)}`)}\n`);
      stillRunning(r);
    }, intervalMs).unref();
  };

  function started(e: StepEvent): void {
    const r: Running = { event: e, started: Date.now() };
    running.set(e.urn, r);
    if (live) {
      ticker ??= setInterval(() => write(""), 1000).unref();
      write("");
      return;
    }
    r.timer = setTimeout(() => {
      out.write(`${head(e, DOING[shown(e)])}\n`);
      stillRunning(r);
    }, startAfterMs).unref();
  }

  /** A build's status goes on the line of the one running step of the type it names; else on a line of its own. */
  function status(message: string): void {
    const parsed = parseStatus(message);
    const owners = parsed ? [...running.values()].filter((r) => displayType(r.event.type).split(":").pop() === parsed.type) : [];
    const owner = owners.length === 1 ? owners[0] : undefined;
    if (!owner || !parsed) return void write(`   ${message}\n`);
    const previous = owner.status?.startsWith(`${parsed.subject}: `) ? owner.status : undefined;
    owner.status = previous ? `${previous} -> ${parsed.status}` : `${parsed.subject}: ${parsed.status}`;
    if (live) write("");
  }

  /** Stops a step's live line; the status its build reached, if any. */
  function ended(e: StepEvent): string | undefined {
    const r = running.get(e.urn);
    clearTimeout(r?.timer);
    running.delete(e.urn);
    if (running.size === 0 && ticker) {
      clearInterval(ticker);
      ticker = undefined;
    }
    return r?.status;
  }

  return {
    event(e: EngineEvent): void {
      if (e.kind === "diagnostic") {
        if (e.ephemeral) status(e.message);
        else if (e.severity === "info") write(`${e.message}\n`);
        else problems.push(e);
        return;
      }
      if (e.op === "same") return;
      if (e.phase === "start") {
        if (!e.planned) started(e);
        return;
      }
      const reached = ended(e);
      phases.set(e.urn, e.phase);
      let text: string;
      if (e.phase === "failed") {
        problems.push(e);
        text = `${paint(31, `x  ${`${e.op} failed`.padEnd(10)}`)} ${displayType(e.type)}  ${e.name}\n`;
      } else if (e.phase === "skipped") {
        const cause = e.cause ?? "";
        const why = phases.get(cause) === "skipped" ? "was not run" : "failed";
        text = `${paint(2, `   ${"skipped".padEnd(10)}`)} ${displayType(e.type)}  ${e.name} (${displayType(urnType(cause))} ${urnName(cause)} ${why})\n`;
      } else text = doneLine(e, reached);
      if (e.planned) held.push(text);
      else write(text);
    },
    summary(r: RunResult): void {
      for (const run of running.values()) clearTimeout(run.timer);
      running.clear();
      clearInterval(ticker);
      if (live) clearLive();
      const planned = r.operation === "preview";
      const programFailed = problems.some((p) => p.kind === "diagnostic" && p.severity === "error" && !p.urn);
      if (!(planned && programFailed)) write(held.join(""));
      held.length = 0;
      diagnostics(r);
      if (planned && programFailed) {
        out.write(`\nNo plan: the program failed (${r.project}/${r.stack}).\n`);
        return;
      }
      out.write(`\n${planned ? "Plan" : "Resources"} (${r.project}/${r.stack}, ${r.operation}):\n`);
      // A forget is counted as a delete by the engine; people read it apart.
      const forgotten = r.steps.filter((s) => s.phase === "done" && s.forget).length;
      const counts: Partial<Record<Shown, number>> = { ...r.changes, delete: (r.changes.delete ?? 0) - forgotten, forget: forgotten };
      const order: Shown[] = ["create", "adopt", "update", "replace", "delete", "forget", "read", "drift", "gone"];
      for (const op of order) {
        const n = counts[op];
        if (n) out.write(`    ${paint(COLOR[op], `${SYMBOL[op]} ${n} ${planned ? `to ${PLANNED[op]}` : DONE[op]}`)}\n`);
      }
      if (r.failed) out.write(`    ${paint(31, `x ${r.failed} failed`)}\n`);
      if (r.skipped) out.write(`    ${r.skipped} skipped\n`);
      out.write(`    ${r.changes.same ?? 0} unchanged\n`);
      const outputs = Object.entries(r.shownOutputs);
      if (outputs.length && r.operation !== "destroy" && r.ok) {
        out.write("Outputs:\n");
        for (const [k, v] of outputs) out.write(`    ${k}: ${showValue(v as Value, true)}\n`);
      }
      out.write(`Duration: ${(r.durationMs / 1000).toFixed(1)}s\n`);
    },
  };

  /** Each failure and warning once, grouped under the resource it concerns (the stack for the program's own). */
  function diagnostics(r: RunResult): void {
    const groups = new Map<string, string[]>();
    const add = (title: string, text: string) => groups.set(title, [...(groups.get(title) ?? []), text]);
    const stackTitle = `${STACK_TYPE} (${r.project}-${r.stack})`;
    for (const p of problems) {
      if (p.kind === "step") add(`${displayType(p.type)} (${p.name})`, `error: ${failureText(p)}`);
      else {
        const message = withConfigCommand(p.message, configCommand);
        const text = `${p.severity}: ${debug ? message : withoutStack(message)}`;
        add(p.urn ? `${displayType(urnType(p.urn))} (${urnName(p.urn)})` : stackTitle, text);
      }
    }
    // A failure outside any step (a refused destroy, a broken state) is reported here too.
    const reported = problems.some((p) => (p.kind === "step" ? p.error === r.error : p.severity === "error"));
    if (r.error && !reported) add(stackTitle, `error: ${r.error}`);
    problems.length = 0;
    if (groups.size === 0) return;
    const text = [...groups].map(([title, lines]) => `  ${title}:\n${lines.map((l) => `    ${l.replace(/\n/g, "\n    ")}\n`).join("")}`).join("");
    err.write(`\n${paint(1, "Diagnostics:")}\n${text}`);
  }
}

/** The result as machines read it: every secret of the outputs masked. */
export function resultJson(r: RunResult): string {
  const { shownOutputs, ...rest } = r;
  return `${JSON.stringify({ ...rest, outputs: shownOutputs }, null, 2)}\n`;
}
