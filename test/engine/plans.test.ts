// Plans and progress as a reviewer reads them off a terminal (NO_COLOR, not a TTY): the exact text for updates with
// nested and array changes, a replace, an adoption, a forget, secrets and unknowns; the same detail in --json; the
// lines a long step prints in a CI log; each failure once, under its resource.
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Progress } from "../../provider/engine/events.ts";
import type { EngineEvent, RunResult, StepEvent } from "../../provider/engine/index.ts";
import { createRenderer, resultJson, type RendererOptions } from "../../provider/cli/render.ts";
import type { ResourceState } from "../../provider/engine/state-file.ts";
import type { Step } from "../../provider/engine/steps.ts";
import { makeSecret, PROVIDER_KEY, UNKNOWN, type PropertyMap } from "../../provider/protocol/values.ts";

const SCOPE = "pulumi-nodejs:dynamic/audience:Scope";
const TARGET = "pulumi-nodejs:dynamic/audience:Target";
const CONNECTION = "pulumi-nodejs:dynamic/audience:Connection";
const urn = (type: string, name: string) => `urn:pulumi:dev::shop::${type}::${name}`;

function state(type: string, name: string, inputs: PropertyMap, extra: Partial<ResourceState> = {}): ResourceState {
  const props = { [PROVIDER_KEY]: "exports.handler = ...", ...inputs };
  return { urn: urn(type, name), custom: true, type, id: `id-${name}`, inputs: props, outputs: props, dependencies: [], ...extra };
}

const longName = `Weekly refresh of ${"every cohort in the north-west region ".repeat(3)}`.trim();

/** One of each kind of step a plan shows values for. */
const steps: Step[] = [
  {
    op: "update",
    urn: urn(SCOPE, "pipeline"),
    old: state(SCOPE, "pipeline", { name: "Leads", population: { cohortIds: ["c1", "c2"], include: [] }, payload: { forecastIds: ["f1"] } }),
    new: state(SCOPE, "pipeline", { name: "Leads (EU)", population: { cohortIds: ["c1", "c3", "c4"], include: [] }, payload: { forecastIds: ["f1"] } }),
    keys: ["name", "population.cohortIds"],
  },
  {
    op: "update",
    urn: urn(SCOPE, "weekly"),
    old: state(SCOPE, "weekly", { name: "Weekly", description: "short" }),
    new: state(SCOPE, "weekly", { name: "Weekly", description: longName }),
    keys: ["description"],
  },
  {
    op: "replace",
    urn: urn(TARGET, "csv"),
    old: state(TARGET, "csv", { scopeId: "s1", options: { type: "hosted_csv" } }),
    new: state(TARGET, "csv", { scopeId: UNKNOWN, options: { type: "sftp" } }),
    keys: ["scopeId", "options.type"],
    replaces: ["scopeId"],
    deleteBeforeReplace: false,
  },
  {
    op: "update",
    urn: urn(CONNECTION, "warehouse"),
    old: state(CONNECTION, "warehouse", { host: "db1.example.com", password: makeSecret("hunter2") }),
    new: state(CONNECTION, "warehouse", { host: "db2.example.com", password: makeSecret("correct horse") }),
    keys: ["host", "password"],
  },
  { op: "adopt", urn: urn(SCOPE, "legacy"), id: "4f2a", new: state(SCOPE, "legacy", { name: "Legacy", adoptId: "4f2a" }) },
  { op: "delete", urn: urn(SCOPE, "archive"), old: state(SCOPE, "archive", { name: "Archive" }, { retainOnDelete: true }), after: [] },
];

/** A step of a run that changes things, before its phase is known. */
function running(op: StepEvent["op"], type: string, name: string): Omit<StepEvent, "phase"> {
  return { kind: "step", op, urn: urn(type, name), type, name, keys: [], planned: false };
}

function capture() {
  const out = new PassThrough();
  const err = new PassThrough();
  const text = { out: "", err: "" };
  out.on("data", (c: Buffer) => (text.out += c.toString()));
  err.on("data", (c: Buffer) => (text.err += c.toString()));
  return { out, err, text };
}

/** The steps reported as a run reports them, through the renderer; returns the events and the printed text. */
async function plan(options: Partial<RendererOptions> = {}, planned = true) {
  const { out, err, text } = capture();
  const renderer = createRenderer({ out, err, tty: false, env: { NO_COLOR: "1" }, ...options });
  const events: StepEvent[] = [];
  const progress = new Progress((e: EngineEvent) => {
    if (e.kind === "step" && e.phase !== "start") events.push(e);
    renderer.event(e);
  }, planned);
  for (const step of steps) await progress.track(step, async () => undefined);
  const result: RunResult = {
    operation: planned ? "preview" : "up",
    project: "shop",
    stack: "dev",
    ok: true,
    changes: { update: 3, replace: 1, adopt: 1, delete: 1 },
    failed: 0,
    skipped: 0,
    steps: events,
    outputs: {},
    secretOutputs: [],
    shownOutputs: {},
    diagnostics: [],
    durationMs: 1234,
    statePath: "",
  };
  renderer.summary(result);
  return { events, result, text };
}

describe("a plan shows the values it changes", () => {
  it("each changed leaf as path: old -> new, forced replaces marked, secrets and unknowns masked", async () => {
    const { text } = await plan();
    expect(text.out).toBe(
      [
        "~  update     audience:Scope  pipeline",
        '    name: "Leads" -> "Leads (EU)"',
        '    population.cohortIds[1]: "c2" -> "c3"',
        '    population.cohortIds[2]: (none) -> "c4"',
        "~  update     audience:Scope  weekly",
        '    description: "short" -> "Weekly refresh of every cohort in the north-west region...',
        // The header names what its lines mark `(forces replace)`.
        "+- replace    audience:Target  csv [replace: scopeId]",
        '    options.type: "hosted_csv" -> "sftp"',
        '    scopeId: "s1" -> (known after apply)  (forces replace)',
        "~  update     audience:Connection  warehouse",
        '    host: "db1.example.com" -> "db2.example.com"',
        "    password: [secret] -> [secret]",
        "=  import     audience:Scope  legacy (id 4f2a)",
        "-  forget     audience:Scope  archive (retained: removed from the state only)",
        "",
        "Plan (shop/dev, preview):",
        "    = 1 to import",
        "    ~ 3 to update",
        "    +- 1 to replace",
        "    - 1 to forget",
        "    0 unchanged",
        "Duration: 1.2s",
        "",
      ].join("\n"),
    );
    expect(text.err).toBe("");
  });

  it("--diff shows whole values, and every input an adopted or created resource starts with", async () => {
    const { text } = await plan({ diff: true });
    expect(text.out).toContain(`    description: "short" -> ${JSON.stringify(longName)}\n`);
    expect(text.out).toContain('=  import     audience:Scope  legacy (id 4f2a)\n    adoptId: "4f2a"\n    name: "Legacy"\n');
  });

  it("--json carries the same detail per step, secrets masked", async () => {
    const { result } = await plan();
    const doc = JSON.parse(resultJson(result)) as { steps: StepEvent[] };
    const scope = doc.steps.find((s) => s.name === "pipeline");
    expect(scope?.changes).toEqual([
      { path: "name", old: "Leads", new: "Leads (EU)" },
      { path: "population.cohortIds[1]", old: "c2", new: "c3" },
      { path: "population.cohortIds[2]", new: "c4" },
    ]);
    expect(doc.steps.find((s) => s.name === "csv")?.changes).toContainEqual({ path: "scopeId", old: "s1", new: "(known after apply)", replaces: true });
    expect(doc.steps.find((s) => s.name === "warehouse")?.changes).toContainEqual({ path: "password", old: "[secret]", new: "[secret]" });
    expect(doc.steps.find((s) => s.name === "archive")).toMatchObject({ op: "delete", forget: true });
    expect(resultJson(result)).not.toMatch(/hunter2|correct horse/);
  });

  it("results show the values too, with the time each step took", async () => {
    const { text } = await plan({}, false);
    expect(text.out).toMatch(/^~ {2}updated {4}audience:Scope {2}pipeline \d+\.\ds\n {4}name: "Leads" -> "Leads \(EU\)"\n/);
    expect(text.out).toMatch(/^- {2}forgotten {2}audience:Scope {2}archive \(retained: removed from the state only\) \d+\.\ds$/m);
    expect(text.out).toContain("    - 1 forgotten\n");
  });
});

describe("progress off a terminal", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("a line when a long step starts, one per interval with its build's status, one when it ends", () => {
    vi.useFakeTimers();
    const { out, err, text } = capture();
    const renderer = createRenderer({ out, err, tty: false, startAfterMs: 1000, intervalMs: 5000 });
    const target = running("create", TARGET, "csv");
    const status = (message: string) => renderer.event({ kind: "diagnostic", severity: "info", message, ephemeral: true });
    renderer.event({ ...target, phase: "start" });
    vi.advanceTimersByTime(1000);
    status("Target tgt_1: new");
    status("Target tgt_1: starting");
    vi.advanceTimersByTime(5000);
    status("Target tgt_1: running");
    vi.advanceTimersByTime(5000);
    status("Target tgt_1: ready");
    renderer.event({ ...target, phase: "done", ms: 12_400 });
    vi.advanceTimersByTime(20_000);
    expect(text.out).toBe(
      [
        "+  creating   audience:Target  csv",
        "+  creating   audience:Target  csv still running, 6s (tgt_1: new -> starting)",
        "+  creating   audience:Target  csv still running, 11s (tgt_1: new -> starting -> running)",
        "+  created    audience:Target  csv 12.4s (tgt_1: new -> starting -> running -> ready)",
        "",
      ].join("\n"),
    );
  });

  it("a step quicker than the start delay prints its end only", () => {
    vi.useFakeTimers();
    const { out, err, text } = capture();
    const renderer = createRenderer({ out, err, tty: false, startAfterMs: 1000, intervalMs: 5000 });
    const scope = running("update", SCOPE, "s");
    renderer.event({ ...scope, phase: "start" });
    vi.advanceTimersByTime(400);
    renderer.event({ ...scope, phase: "done", ms: 400 });
    vi.advanceTimersByTime(10_000);
    expect(text.out).toBe("~  updated    audience:Scope  s 0.4s\n");
  });

  it("on a terminal with NO_COLOR set, no escape codes: no colour and no live lines", () => {
    const { out, err, text } = capture();
    const renderer = createRenderer({ out, err, tty: true, env: { NO_COLOR: "1" } });
    const scope = running("create", SCOPE, "s");
    renderer.event({ ...scope, phase: "start" });
    renderer.event({ ...scope, phase: "failed", error: "boom", ms: 5 });
    renderer.summary({ operation: "up", project: "shop", stack: "dev", ok: false, error: "boom", changes: {}, failed: 1, skipped: 0, steps: [], outputs: {}, secretOutputs: [], shownOutputs: {}, diagnostics: [], durationMs: 5, statePath: "" });
    expect(text.out + text.err).not.toContain("\u001b");
  });
});

describe("failures", () => {
  const failed: StepEvent = { ...running("create", SCOPE, "upstream"), phase: "failed" };
  const result = (over: Partial<RunResult>): RunResult => ({ operation: "up", project: "shop", stack: "dev", ok: false, changes: { create: 1 }, failed: 1, skipped: 2, steps: [], outputs: { url: "x" }, secretOutputs: [], shownOutputs: { url: "x" }, diagnostics: [], durationMs: 2000, statePath: "", ...over });
  const programError = [
    "Running program '/p/index.ts' failed with an unhandled exception:",
    "<ref *1> Error: the program broke",
    "    at Object.<anonymous> (/p/index.ts:3:7)",
    "    at Module._compile (node:internal/modules/cjs/loader:1554:14) {",
    "  promise: Promise { <rejected> [Circular *1] }",
    "}",
  ].join("\n");

  function render(events: EngineEvent[], r: RunResult, options: Partial<RendererOptions> = {}) {
    const { out, err, text } = capture();
    const renderer = createRenderer({ out, err, tty: false, ...options });
    for (const e of events) renderer.event(e);
    renderer.summary(r);
    return text;
  }

  it("each failure once, under its resource, what it kept from running as skipped, and the counts", () => {
    const message = `${SCOPE} "upstream": POST /scopes: 400 VALIDATION_FAILED: population.cohortIds[0]: no cohort with this id`;
    const text = render(
      [
        { ...failed, error: message, ms: 300 },
        { kind: "step", phase: "skipped", op: "create", urn: urn(TARGET, "csv"), type: TARGET, name: "csv", keys: [], planned: false, cause: urn(SCOPE, "upstream") },
        { kind: "step", phase: "skipped", op: "create", urn: urn(TARGET, "copy"), type: TARGET, name: "copy", keys: [], planned: false, cause: urn(TARGET, "csv") },
      ],
      result({ error: message }),
    );
    expect(text.out).toBe(
      [
        "x  create failed audience:Scope  upstream",
        "   skipped    audience:Target  csv (audience:Scope upstream failed)",
        "   skipped    audience:Target  copy (audience:Target csv was not run)",
        "",
        "Resources (shop/dev, up):",
        "    + 1 created",
        "    x 1 failed",
        "    2 skipped",
        "    0 unchanged",
        "Duration: 2.0s",
        "",
      ].join("\n"),
    );
    expect(text.err).toBe(["", "Diagnostics:", "  audience:Scope (upstream):", "    error: POST /scopes: 400 VALIDATION_FAILED: population.cohortIds[0]: no cohort with this id", ""].join("\n"));
  });

  it("a preview whose program fails prints the program error without its stack trace, and no plan", () => {
    const text = render([{ kind: "diagnostic", severity: "error", message: programError }], result({ operation: "preview", changes: {}, failed: 0, skipped: 0, error: programError }));
    expect(text.out).toBe("\nNo plan: the program failed (shop/dev).\n");
    expect(text.err).toBe(
      ["", "Diagnostics:", "  pulumi:pulumi:Stack (shop-dev):", "    error: Running program '/p/index.ts' failed with an unhandled exception:", "    Error: the program broke", ""].join("\n"),
    );
  });

  it("a preview whose program fails after planning some steps prints none of their lines", () => {
    const planned: StepEvent = { ...running("create", SCOPE, "early"), phase: "done", planned: true };
    const text = render([planned, { kind: "diagnostic", severity: "error", message: programError }], result({ operation: "preview", changes: { create: 1 }, failed: 0, skipped: 0, error: programError }));
    expect(text.out).toBe("\nNo plan: the program failed (shop/dev).\n");
  });

  it("Pulumi's config hint names the command given, and stays as Pulumi wrote it without one", () => {
    const missing = "Missing required configuration variable 'shop:password'\n\tplease set a value using the command `pulumi config set --secret shop:password <value>`";
    const failedPreview = result({ operation: "preview", changes: {}, failed: 0, skipped: 0, error: missing });
    const named = render([{ kind: "diagnostic", severity: "error", message: missing }], failedPreview, { configCommand: "audience config set --stack prod" });
    expect(named.err).toContain("    \tplease set a value using the command `audience config set --stack prod --secret shop:password <value>`\n");
    expect(named.err).not.toContain("pulumi config set");
    const kept = render([{ kind: "diagnostic", severity: "error", message: missing }], failedPreview);
    expect(kept.err).toContain("`pulumi config set --secret shop:password <value>`");
  });

  it("--debug keeps the stack trace", () => {
    const text = render([{ kind: "diagnostic", severity: "error", message: programError }], result({ operation: "preview", error: programError }), { debug: true });
    expect(text.err).toContain("    at Object.<anonymous> (/p/index.ts:3:7)");
  });

  it("a failure outside any step is reported once, on the stack", () => {
    const text = render([], result({ operation: "destroy", changes: {}, failed: 0, skipped: 0, error: "cannot destroy: protected resources urn:x" }));
    expect(text.err).toBe("\nDiagnostics:\n  pulumi:pulumi:Stack (shop-dev):\n    error: cannot destroy: protected resources urn:x\n");
  });
});
