// A program that throws is reported with its own message and a stack naming its file and line, even though the
// engine keeps the runtime's stack traces cheap (no source-map formatting, no stack per promise). The runtime's debug
// messages, which the engine keeps none of, stay in the program it starts; as the Pulumi CLI runs it, the package's
// preload keeps the runtime's traces of each resource call in the program.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { runProgram } from "../../provider/cli/program.ts";
import { runLanguageRuntime } from "../../provider/engine/language.ts";
import { startMonitor, type Registration } from "../../provider/engine/monitor.ts";
import { loadProject } from "../../provider/engine/project.ts";

const FIXTURE = join(import.meta.dirname, "fixtures", "notes");
const dir = mkdtempSync(join(tmpdir(), "engine-program-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("a program that throws fails the run with its message and the place it threw", { timeout: 120_000 }, async () => {
  const r = await runProgram({ cwd: FIXTURE, operation: "preview", passphrase: "p", stateDir: dir, env: { NOTES_DIR: dir }, config: { throw: "true" } });
  expect(r.ok).toBe(false);
  const report = r.diagnostics.filter((d) => d.severity === "error").map((d) => d.message).join("\n");
  expect(report).toContain("Error: the notes program failed on purpose");
  expect(report).toMatch(/at .*fixtures\/notes\/index\.ts:\d+:\d+/);
});

it("an up whose program throws keeps the stack's outputs, as Pulumi keeps them", { timeout: 120_000 }, async () => {
  const stateDir = join(dir, "kept-outputs");
  const run = (config: Record<string, string>) => runProgram({ cwd: FIXTURE, operation: "up", stack: "kept", passphrase: "p", stateDir, env: { NOTES_DIR: dir }, config });
  const first = await run({});
  expect(first.ok, first.error).toBe(true);
  // The stack's outputs as recorded, each secret's ciphertext (sealed anew by each write) left out.
  const outputs = () => {
    const state = JSON.parse(readFileSync(join(stateDir, "kept.json"), "utf8"), (key: string, value: unknown) => (key === "ciphertext" ? "sealed" : value)) as { deployment: { resources: { type: string; outputs: Record<string, unknown> }[] } };
    return state.deployment.resources.find((res) => res.type === "pulumi:pulumi:Stack")!.outputs;
  };
  const before = outputs();
  expect(before).toMatchObject({ twoText: "after hi", stackName: "kept" });
  const failed = await run({ throw: "true" });
  expect(failed.ok).toBe(false);
  expect(outputs()).toEqual(before);
});

it("each resource records where the program declared it, as Pulumi records it", { timeout: 120_000 }, async () => {
  const stateDir = join(dir, "positions");
  const r = await runProgram({ cwd: FIXTURE, operation: "up", stack: "positions", passphrase: "p", stateDir, env: { NOTES_DIR: dir } });
  expect(r.ok, r.error).toBe(true);
  const { deployment } = JSON.parse(readFileSync(join(stateDir, "positions.json"), "utf8")) as { deployment: { resources: { urn: string; sourcePosition?: string }[] } };
  const at = Object.fromEntries(deployment.resources.map((res) => [res.urn.split("::").at(-1), res.sourcePosition]));
  // The first frame in the project, outside node_modules: the constructor of the program's Note class.
  const noteConstructor = "project:///provider.ts#64,5";
  expect(at).toMatchObject({ one: noteConstructor, two: noteConstructor, vault: noteConstructor, "shelf-inner": noteConstructor });
});

/**
 * Writes a program (inside the repository, where it resolves @pulumi/pulumi) registering one resource and logging,
 * preloaded as `audience new` writes it (the engine preloads it into every program too).
 */
function debugProgram(): string {
  mkdirSync(join(import.meta.dirname, "..", "..", ".audience"), { recursive: true });
  const program = mkdtempSync(join(import.meta.dirname, "..", "..", ".audience", "debug-logs-"));
  writeFileSync(join(program, "Pulumi.yaml"), `name: debug-logs\nruntime:\n  name: nodejs\n  options:\n    typescript: false\n    nodeargs: --require=pulumi-audience/require-node\nmain: index.ts\n`);
  writeFileSync(join(program, "index.ts"), [
    'import * as pulumi from "@pulumi/pulumi";',
    'new pulumi.CustomResource("test:index:Thing", "thing", { size: 1 });',
    'pulumi.log.debug("the program\'s own debug line");',
    'pulumi.log.debug("an ephemeral debug line", undefined, undefined, true);',
    'pulumi.log.info("a line for the user");',
    "",
  ].join("\n"));
  return program;
}

/** The debug and info messages the program sends a monitor, run by the engine or as the Pulumi CLI runs it. */
async function sent(program: string, asCli: boolean, env: NodeJS.ProcessEnv = {}): Promise<{ debug: string[]; info: string[] }> {
  const logs: { severity: string; message: string }[] = [];
  const monitor = await startMonitor({
    register: async (reg: Registration) => ({ urn: `urn:pulumi:dev::debug-logs::${reg.type}::${reg.name}`, id: reg.custom ? reg.name : "", outputs: reg.inputs }),
    registerOutputs: async () => undefined,
    read: async () => { throw new Error("not served"); },
    invoke: async () => { throw new Error("not served"); },
    log: (severity, message) => void logs.push({ severity, message }),
  });
  try {
    const { AUDIENCE_RUNTIME_TRACES: _, ...rest } = process.env;
    const code = await runLanguageRuntime({
      project: loadProject(program), stack: "dev", monitorAddress: monitor.address, dryRun: false, parallel: 8, asCli,
      env: { ...rest, NODE_OPTIONS: "", ...env }, onOutput: () => undefined,
    });
    expect(code).toBe(0);
  } finally {
    await monitor.close();
  }
  return { debug: logs.filter((l) => l.severity === "debug").map((l) => l.message), info: logs.filter((l) => l.severity === "info").map((l) => l.message) };
}

it("a program the engine starts sends it no debug message but ephemeral ones; as the Pulumi CLI runs it, every one but the runtime's traces of resource calls, unless asked for", { timeout: 120_000 }, async () => {
  const program = debugProgram();
  try {
    expect(await sent(program, false)).toEqual({ debug: ["an ephemeral debug line"], info: ["a line for the user"] });
    const cli = await sent(program, true);
    expect(cli.debug).toEqual(expect.arrayContaining(["the program's own debug line", "an ephemeral debug line"]));
    expect(cli.debug.filter((m) => /^(Registering resource|RegisterResource RPC)/.test(m))).toEqual([]);
    expect(cli.info).toEqual(["a line for the user"]);
    const traced = await sent(program, true, { AUDIENCE_RUNTIME_TRACES: "1" });
    expect(traced.debug).toEqual(expect.arrayContaining([
      "the program's own debug line",
      "an ephemeral debug line",
      expect.stringMatching(/^Registering resource: t=test:index:Thing, name=thing/),
      expect.stringMatching(/^RegisterResource RPC finished: /),
    ]));
  } finally {
    rmSync(program, { recursive: true, force: true });
  }
});
