// The package runs on the program's own @pulumi/pulumi (a peer dependency, ^3.270.0): a version outside that range,
// or none, stops it at once with one sentence saying which versions it supports; and the patches the preload and the
// entry points make inside the runtime (bin/) leave alone whatever a later version moved, instead of crashing the
// program. Each case is the package's bin/ and package.json installed beside a made-up @pulumi/pulumi in a program's
// node_modules.
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const SUPPORTED = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { peerDependencies: Record<string, string> }).peerDependencies["@pulumi/pulumi"]!;

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A program's folder with this package's bin/ and package.json installed, and a @pulumi/pulumi of `files` (path to
 * text, `package.json` holding its version), or none. */
function program(pulumi?: Record<string, string>): { dir: string; bin: string; runtime: string } {
  const dir = mkdtempSync(join(tmpdir(), "audience-runtime-versions-"));
  made.push(dir);
  const installed = join(dir, "node_modules", "pulumi-audience");
  cpSync(join(ROOT, "bin"), join(installed, "bin"), { recursive: true });
  cpSync(join(ROOT, "package.json"), join(installed, "package.json"));
  const runtime = join(dir, "node_modules", "@pulumi", "pulumi");
  for (const [path, text] of Object.entries(pulumi ?? {})) {
    mkdirSync(dirname(join(runtime, path)), { recursive: true });
    writeFileSync(join(runtime, path), text);
  }
  return { dir, bin: join(installed, "bin"), runtime };
}

const version = (v: string) => ({ "package.json": JSON.stringify({ name: "@pulumi/pulumi", version: v }) });

function node(args: string[], cwd: string): { status: number | null; stdout: string; stderr: string } {
  const { NODE_OPTIONS: _, AUDIENCE_RUNTIME_TRACES: __, PULUMI_DEBUG_PROMISE_LEAKS: ___, ...env } = process.env;
  return spawnSync(process.execPath, args, { cwd, encoding: "utf8", env });
}

describe("the @pulumi/pulumi the package runs on", () => {
  it.each(["3.270.0", "3.276.0", "3.300.1"])("is accepted at %s", (v) => {
    const { dir, bin } = program(version(v));
    const run = node(["-e", `require(${JSON.stringify(join(bin, "pulumi-version.cjs"))})`], dir);
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
  });

  it.each(["3.269.0", "3.142.0", "4.0.0", "2.99.0"])("is refused at %s, with one sentence naming the versions supported and the program's", (v) => {
    const { dir, bin, runtime } = program(version(v));
    const code = `try { require(${JSON.stringify(join(bin, "pulumi-version.cjs"))}) } catch (e) { console.log(JSON.stringify({ message: e.message, runError: e.__pulumiRunError, stack: e.stack })) }`;
    const run = node(["-e", code], dir);
    const error = JSON.parse(run.stdout) as { message: string; runError: boolean; stack: string };
    expect(error.message).toBe(`pulumi-audience supports @pulumi/pulumi ${SUPPORTED} (${SUPPORTED.slice(1)} or a later 3.x), and the program's is ${v} (${runtime}): run \`npm install @pulumi/pulumi@${SUPPORTED}\` in the program's folder`);
    // Pulumi prints a RunError's message alone.
    expect(error.runError).toBe(true);
    expect(error.stack).toBe(`Error: ${error.message}`);
  });

  it("stops the preload at once, in one line, before the program runs", () => {
    const { dir, runtime } = program(version("3.200.0"));
    writeFileSync(join(dir, "index.cjs"), "console.log('the program ran')");
    const run = node(["--require=pulumi-audience/require-node", "index.cjs"], dir);
    expect(run.status).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(`error: pulumi-audience supports @pulumi/pulumi ${SUPPORTED} (${SUPPORTED.slice(1)} or a later 3.x), and the program's is 3.200.0 (${runtime}): run \`npm install @pulumi/pulumi@${SUPPORTED}\` in the program's folder\n`);
  });

  it("names the versions to install when none is, and the plugin says which folder to install instead", () => {
    const { dir, bin } = program();
    const preload = node(["--require=pulumi-audience/require-node", "-e", ""], dir);
    expect(preload.status).toBe(1);
    expect(preload.stderr).toBe(`error: pulumi-audience needs @pulumi/pulumi ${SUPPORTED} (${SUPPORTED.slice(1)} or a later 3.x) installed beside it, and none is: run \`npm install @pulumi/pulumi@${SUPPORTED}\` in the program's folder\n`);
    const plugin = node([join(bin, "pulumi-plugin.cjs")], dir);
    expect(plugin.status).toBe(1);
    expect(plugin.stdout).toBe("");
    expect(plugin.stderr).toContain("install the plugin from the release folder that `npm run plugin:pack` makes");
  });
});

describe("the runtime patches on a @pulumi/pulumi whose modules moved", () => {
  // A later 3.x where none of the patched modules is as 3.270 has it: the run entry's tracing names other functions,
  // the closure serializer's hooks lack getSessionAsync, the log has no `debug`, the answers' classes and
  // debuggablePromise are gone. The run entry says what it finds.
  const MOVED = {
    ...version("3.999.0"),
    "cmd/run/tracing.js": "exports.begin = () => 'began';\n",
    "runtime/closure/v8Hooks.js": "exports.isInitializedAsync = async () => 'real';\n",
    "runtime/closure/codePaths.js": "exports.codePathsOf = () => 'real';\n",
    "log/index.js": "exports.info = () => undefined;\n",
    "cmd/run/index.js": [
      "const tracing = require('./tracing.js');",
      "const hooks = require('../../runtime/closure/v8Hooks.js');",
      "const paths = require('../../runtime/closure/codePaths.js');",
      "console.log(JSON.stringify({ newSpan: typeof tracing.newSpan, begin: tracing.begin(), getSessionAsync: typeof hooks.getSessionAsync, computeCodePaths: typeof paths.computeCodePaths, log: Object.keys(require('../../log/index.js')) }));",
      "",
    ].join("\n"),
  };

  it("run the program as the runtime has it, patching nothing that moved", () => {
    const { dir, runtime } = program(MOVED);
    const run = node(["--require=pulumi-audience/require-node", join(runtime, "cmd", "run", "index.js")], dir);
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ newSpan: "undefined", begin: "began", getSessionAsync: "undefined", computeCodePaths: "undefined", log: ["info"] });
  });

  it("patch what is still there: the log's debug, when only the answers' classes moved", () => {
    const { dir, runtime } = program({
      ...MOVED,
      "log/index.js": "exports.debug = (message) => console.log('sent: ' + message);\n",
      "cmd/run/index.js": "const log = require('../../log/index.js');\nlog.debug('Registering resource: t=x');\nlog.debug('the program\\'s own line');\n",
    });
    const run = node(["--require=pulumi-audience/require-node", join(runtime, "cmd", "run", "index.js")], dir);
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe("sent: the program's own line\n");
  });
});
