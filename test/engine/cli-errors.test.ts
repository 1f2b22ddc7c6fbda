// A failing run as a CI log shows it (NO_COLOR, not a TTY): the failure once under its resource, what depended on
// it skipped, in text and --json; a program that throws gives its error without a stack trace and no plan; exit 1.
// A command line that cannot be understood is one line and exit 2. A refresh or destroy of a stack that was never
// made refuses, and makes none.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { audience as cli } from "../cli/helpers.ts";

const FIXTURE = join(import.meta.dirname, "fixtures", "chain");
const dir = mkdtempSync(join(tmpdir(), "engine-cli-errors-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function audience(...args: string[]) {
  return cli(args, { env: { NOTES_DIR: dir, PULUMI_CONFIG_PASSPHRASE: "cli passphrase", NO_COLOR: "1" } });
}

const preview = (...args: string[]) => audience("run", "preview", "--cwd", FIXTURE, "--state-dir", dir, ...args);

it("a failed resource is reported once, under its name; what depends on it is skipped; exit status 1", { timeout: 60_000 }, async () => {
  const r = await preview();
  expect(r.code).toBe(1);
  expect(r.stdout.replace(/Duration: \d+\.\ds/, "Duration: Xs")).toBe(
    [
      "+  create     pulumi:pulumi:Stack  chain-dev",
      "x  create failed notes:Note  upstream",
      "   skipped    notes:Note  downstream (notes:Note upstream failed)",
      "   skipped    notes:Note  further (notes:Note downstream was not run)",
      "",
      "Plan (chain/dev, preview):",
      "    + 1 to create",
      "    x 1 failed",
      "    2 skipped",
      "    0 unchanged",
      "Duration: Xs",
      "",
    ].join("\n"),
  );
  expect(r.stderr).toBe(["", "Diagnostics:", "  notes:Note (upstream):", "    error: invalid inputs: text: must be a string", ""].join("\n"));
});

it("--json names the failed step and the skipped ones with their cause", { timeout: 60_000 }, async () => {
  const r = await preview("--json");
  expect(r.code).toBe(1);
  const doc = JSON.parse(r.stdout) as { ok: boolean; failed: number; skipped: number; steps: { phase: string; name: string; cause?: string; error?: string }[] };
  expect(doc).toMatchObject({ ok: false, failed: 1, skipped: 2 });
  const byName = Object.fromEntries(doc.steps.filter((s) => s.phase !== "done").map((s) => [s.name, s]));
  expect(byName["upstream"]).toMatchObject({ phase: "failed", error: expect.stringMatching(/text: must be a string$/) as unknown });
  expect(byName["downstream"]).toMatchObject({ phase: "skipped", cause: "urn:pulumi:dev::chain::pulumi-nodejs:dynamic/notes:Note::upstream" });
  expect(byName["further"]).toMatchObject({ phase: "skipped", cause: "urn:pulumi:dev::chain::pulumi-nodejs:dynamic/notes:Note::downstream" });
});

it("up goes on with what does not depend on the failure and records no output of what did not run", { timeout: 60_000 }, async () => {
  const r = await audience("run", "up", "--yes", "--json", "-c", "fine=true", "--cwd", FIXTURE, "--state-dir", dir);
  expect(r.code).toBe(1);
  const doc = JSON.parse(r.stdout) as { ok: boolean; failed: number; skipped: number; changes: Record<string, number>; outputs: Record<string, unknown> };
  expect(doc).toMatchObject({ ok: false, failed: 1, skipped: 2, changes: { create: 2 } });
  expect(doc.outputs).toEqual({ finePath: join(dir, "fine-a.json") });
  const state = readFileSync(join(dir, "dev.json"), "utf8");
  expect(state).toContain("fine-a.json");
  expect(state).not.toContain("04da6b54-80e4-46f7-96ec-b56ff0331ba9");
});

it("a preview whose program throws prints the program's error, no stack trace and no plan", { timeout: 60_000 }, async () => {
  const r = await preview("-c", "throw=true");
  expect(r.code).toBe(1);
  expect(r.stdout).not.toMatch(/Plan \(/);
  expect(r.stdout).toContain("No plan: the program failed (chain/dev).");
  expect(r.stderr).toMatch(/^\nDiagnostics:\n {2}pulumi:pulumi:Stack \(chain-dev\):\n {4}error: Running program '.*index\.ts' failed with an unhandled exception:\n {4}Error: the program broke before declaring anything\n$/);
});

it("a program whose dependencies are not installed says so once, with what to run, not Node's stack", { timeout: 60_000 }, async () => {
  // Its Pulumi.yaml preloads this package, as a scaffold's does; outside this checkout nothing installs it.
  const program = mkdtempSync(join(tmpdir(), "engine-not-installed-"));
  try {
    cpSync(FIXTURE, program, { recursive: true });
    writeFileSync(join(program, "Pulumi.yaml"), "name: chain\nruntime:\n  name: nodejs\n  options:\n    typescript: false\n    nodeargs: --require=pulumi-audience/require-node\nmain: index.ts\n");
    const r = await audience("run", "preview", "--cwd", program, "--state-dir", dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`\nDiagnostics:\n  pulumi:pulumi:Stack (chain-dev):\n    error: ${join(program, "Pulumi.yaml")}: nodeargs preload pulumi-audience/require-node, which is not installed for the program: run \`npm install\` in ${program}\n`);
  } finally {
    rmSync(program, { recursive: true, force: true });
  }
});

it("a command line that cannot be understood is one line and exit status 2", { timeout: 60_000 }, async () => {
  const r = await audience("run", "preview", "-c", "novalue");
  expect(r.code).toBe(2);
  expect(r.stdout).toBe("");
  expect(r.stderr).toBe('error: --config "novalue": expected key=value (see --help)\n');
});

it("a malformed --secret is a usage error that does not repeat the value", { timeout: 60_000 }, async () => {
  const r = await audience("run", "preview", "--secret", "hunter2-secret");
  expect(r.code).toBe(2);
  expect(r.stderr).toBe("error: --secret: expected key=value (see --help)\n");
  expect(r.stderr).not.toContain("hunter2");
});

it("refresh and destroy of a stack that was never made refuse, naming the stacks there, and make none", { timeout: 60_000 }, async () => {
  const stateDir = mkdtempSync(join(tmpdir(), "engine-no-stack-"));
  try {
    writeFileSync(join(stateDir, "prod.json"), "{}"); // only its name is read
    for (const operation of ["refresh", "destroy"]) {
      const r = await audience("run", operation, "--yes", "--stack", "prdo", "--cwd", FIXTURE, "--state-dir", stateDir);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(`error: no stack "prdo" to ${operation}: it has no state in ${stateDir} and no Pulumi.prdo.yaml (the stacks here: prod)\n`);
    }
    expect(readdirSync(stateDir)).toEqual(["prod.json"]);
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
});

it("lookups of accounts the config does not name: each error once, and no warning from Node after them", { timeout: 60_000 }, async () => {
  const program = join(import.meta.dirname, "..", "..", "examples", "two-accounts");
  const r = await cli(["run", "preview", "--cwd", program, "--state-dir", dir], { env: { PULUMI_CONFIG_PASSPHRASE: "cli passphrase", NO_COLOR: "1", AUDIENCE_API_KEY: "k", AUDIENCE_BASE_URL: "http://127.0.0.1:9/v1" } });
  expect(r.code).toBe(1);
  expect(r.stdout + r.stderr).not.toContain("PromiseRejectionHandledWarning");
  for (const account of ["north", "south"]) expect(r.stderr.split(`getCohort: account: names account "${account}" but audience:accounts is not set`)).toHaveLength(2);
});
