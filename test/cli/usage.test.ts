// What the command says when it cannot start or was called wrongly: --version, usage errors as one line with exit
// status 2 (1 for the commands whose 2 says something else; a secret never echoed), and a Node too old named in one
// line with the way to get a newer one.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { nodeProblem, requiredNode } from "pulumi-audience/node-version";
import { audience, onTerminal, ROOT } from "./helpers.ts";

const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string; engines: { node: string } };

it("--version prints the package's version", async () => {
  const r = await audience(["--version"]);
  expect(r).toEqual({ code: 0, stdout: `${manifest.version}\n`, stderr: "" });
});

it("help <command> prints what <command> --help prints, for every command", async () => {
  for (const command of ["new", "emulator", "run", "config", "stack", "pending", "demo", "drift", "generate", "schema"]) {
    const [viaHelp, viaFlag] = await Promise.all([audience(["help", command]), audience([command, "--help"])]);
    expect(viaHelp, command).toEqual(viaFlag);
    expect(viaHelp.code).toBe(0);
    expect(viaHelp.stdout, command).toMatch(new RegExp(`^Usage: audience ${command} `));
  }
});

/** Runs the command line, which must stop with `code`, `message` on stderr and nothing on stdout. */
async function refused(args: string[], message: RegExp, code: number): Promise<void> {
  const r = await audience(args);
  expect(r.stderr).toMatch(message);
  expect(r.code).toBe(code);
  expect(r.stdout).toBe("");
}

describe("usage errors are one line and exit status 2", () => {
  const cases: [string, string[], RegExp][] = [
    ["-c without =", ["run", "preview", "-c", "novalue"], /^error: --config "novalue": expected key=value \(see --help\)\n$/],
    ["--secret without = (never echoed)", ["run", "preview", "--secret", "hunter2-secret"], /^error: --secret: expected key=value \(see --help\)\n$/],
    ["--parallel that is no whole number", ["run", "preview", "--parallel", "many"], /^error: option '--parallel <n>' argument 'many' is invalid\. expected a whole number >= 1 \(see --help\)\n$/],
    ["an unknown command", ["frobnicate"], /^error: unknown command 'frobnicate' \(see --help\)\n$/],
    ["an unknown option", ["run", "preview", "--colour"], /^error: unknown option '--colour' \(see --help\)\n$/],
    ["a missing argument", ["config", "set"], /^error: missing required argument 'key' \(see --help\)\n$/],
    ["an operation run does not know", ["run", "apply"], /^error: command-argument value 'apply' is invalid for argument 'operation'\. Allowed choices are preview, up, refresh, destroy\. \(see --help\)\n$/],
  ];
  it.each(cases)("%s", (_what, args, message) => refused(args, message, 2));

  it("a failure that is not a usage error exits 1, also in one line", async () => {
    const r = await audience(["stack", "output", "--cwd", tmpdir()]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: no Pulumi\.yaml in .*\n$/);
  });
});

describe("a command that reads a document from stdin, run on a terminal", () => {
  // Nothing is piped: it would wait for a document no one types. It says how to give one instead.
  it.each([
    ["stack import", ["stack", "import", "--cwd", join(ROOT, "examples", "adaptive-discounting")], "error: stack import: give --file <path>, or pipe a `pulumi stack export` document on stdin (see --help)", 2],
    ["pending --file -", ["pending", "--file", "-"], "error: pending --file -: pipe a `pulumi stack export` document on stdin, or give its path (see --help)", 1],
  ])("%s refuses at once, with its usage status", async (_what, args, message, code) => {
    const r = await onTerminal(args, { timeoutMs: 30_000 });
    expect(r.shown.trim()).toBe(message);
    expect(r.code).toBe(code);
  });
});

describe("audience drift, where exit status 2 means something matched --fail-on", () => {
  const cases: [string, string[], RegExp][] = [
    ["a format it does not know", ["drift", "--state", "x.json", "--format", "xml"], /^error: option '--format <format>' argument 'xml' is invalid\. Allowed choices are text, json, markdown, github\. \(see --help\)\n$/],
    ["an unknown option", ["drift", "--sate", "x.json"], /^error: unknown option '--sate' \(Did you mean --state\?\) \(see --help\)\n$/],
    ["merge without reports", ["drift", "merge"], /^error: missing required argument 'reports' \(see --help\)\n$/],
  ];
  it.each(cases)("exits 1 for %s, as for any other bad input, in one line", (_what, args, message) => refused(args, message, 1));

  it("still exits 0 for --help", async () => {
    const r = await audience(["drift", "merge", "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Usage: audience drift merge");
  });
});

describe("audience pending, where exit status 2 means a create is left for the user to decide", () => {
  const cases: [string, string[], RegExp][] = [
    ["an unknown option", ["pending", "--bogus"], /^error: unknown option '--bogus' \(see --help\)\n$/],
    ["a --since that is no time", ["pending", "--since", "never"], /^error: --since: expected a time \(ISO 8601, .*\), got "never" \(see --help\)\n$/],
    ["--apply with --file", ["pending", "--apply", "--file", "x.json"], /^error: --apply changes this engine's state; .* \(see --help\)\n$/],
  ];
  it.each(cases)("exits 1 for %s, whether commander or the command finds it", (_what, args, message) => refused(args, message, 1));
});

describe("an older Node", () => {
  it("is named with the Node needed and how to get it", () => {
    expect(requiredNode).toBe(manifest.engines.node);
    expect(nodeProblem("20.20.2")).toBe(
      "pulumi-audience needs Node >= 22.18 (this is Node 20.20.2): install it from https://nodejs.org/ or with a version manager (`nvm install 22`), put it first on PATH, then run again",
    );
    expect(nodeProblem("22.17.1")).toMatch(/needs Node >= 22\.18 \(this is Node 22\.17\.1\)/);
    for (const fine of ["22.18.0", "22.23.3", "23.0.0", "24.1.0", process.versions.node]) expect(nodeProblem(fine)).toBeUndefined();
  });

  const dir = mkdtempSync(join(tmpdir(), "cli-node-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const asNode20 = join(dir, "as-node-20.cjs");
  writeFileSync(asNode20, 'Object.defineProperty(process.versions, "node", { value: "20.20.2" });\n');

  it.each([
    ["the audience command", [join(ROOT, "bin", "audience.js"), "--version"]],
    ["a program preloading pulumi-audience/require-node, as a scaffold's Pulumi.yaml does", ["--require=pulumi-audience/require-node", "-e", 'throw new Error("the program ran")']],
    ["the local engine, before it starts a program", ["--conditions=source", join(ROOT, "provider", "cli", "main.ts"), "run", "preview", "--cwd", join(ROOT, "test", "engine", "fixtures", "notes"), "--state-dir", dir]],
  ])("%s stops with that one line and exit status 1", (_what, args) => {
    const r = spawnSync(process.execPath, ["--require", asNode20, ...args], { cwd: ROOT, encoding: "utf8", timeout: 60_000, env: { ...process.env, PULUMI_CONFIG_PASSPHRASE: "unused" } });
    expect(r.stderr).toBe(`error: ${nodeProblem("20.20.2")}\n`);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe("");
  });
});
