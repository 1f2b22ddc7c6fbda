// Programs do not load the closure serializer's heavy modules (TypeScript's compiler; npm's arborist, for code
// paths) nor `pulumi.automation` and `pulumi.provider`: importing the package (or @pulumi/pulumi under the package's
// preload) leaves them unloaded until a function is serialized, code paths computed or those names read, which still
// work. The run entry's tracing (OpenTelemetry's SDK) loads only when tracing starts, and the serializer's debugger
// turns on when it is first used.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

// Inside the package, where `pulumi-audience` resolves to itself.
mkdirSync(join(process.cwd(), ".audience"), { recursive: true });
const dir = mkdtempSync(join(process.cwd(), ".audience", "lazy-closure-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An expression printing which of the two are loaded, as `[compiler, arborist]`. */
const LOADED = "JSON.stringify(((files) => [/[\\\\/]typescript[\\\\/]lib[\\\\/]/, /[\\\\/]@npmcli[\\\\/]arborist[\\\\/]/].map((re) => files.some((f) => re.test(f))))"
  + '(Object.keys(process.getBuiltinModule("node:module").createRequire(import.meta.url).cache)))';

/** The package's program preload, as a scaffold's Pulumi.yaml gives it. */
const PRELOAD = ["--require=pulumi-audience/require-node"];

/** Runs an ES module program; what it prints. */
function program(code: string, nodeArgs: string[] = []): string {
  const file = join(dir, `p${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(file, code);
  const run = spawnSync(process.execPath, ["--conditions=source", ...nodeArgs, file], { cwd: process.cwd(), encoding: "utf8" });
  expect(run.stderr.replace(/\(node:\d+\) \S+Warning:.*\n|\(Use `node --trace.*\n/g, "")).toBe("");
  return run.stdout.trim();
}

it("importing the package leaves both unloaded", () => {
  expect(program(`import "pulumi-audience";\nimport "pulumi-audience/native";\nconsole.log(${LOADED});`)).toBe("[false,false]");
});

it("without the package, @pulumi/pulumi alone loads both (what the package spares)", () => {
  expect(program(`import "@pulumi/pulumi";\nconsole.log(${LOADED});`)).toBe("[true,true]");
});

it("the preload keeps them unloaded for a program that imports @pulumi/pulumi first", () => {
  expect(program(`import "@pulumi/pulumi";\nimport "pulumi-audience";\nconsole.log(${LOADED});`, PRELOAD)).toBe("[false,false]");
});

it("a function is still serialized, loading the compiler then", () => {
  const out = program(
    `import * as pulumi from "@pulumi/pulumi";\nconst before = ${LOADED};\nconst { text } = await pulumi.runtime.serializeFunction(() => 41 + 1);\nconsole.log(before, ${LOADED}, text.includes("41 + 1"));`,
    PRELOAD,
  );
  expect(out).toBe("[false,false] [true,false] true");
});

it("code paths are still computed, loading arborist then, with the same answer as without the preload", () => {
  const paths = `(await pulumi.runtime.computeCodePaths()).size`;
  const without = program(`import * as pulumi from "@pulumi/pulumi";\nconsole.log(${paths});`);
  expect(Number(without)).toBeGreaterThan(0);
  const out = program(`import * as pulumi from "@pulumi/pulumi";\nconst before = ${LOADED};\nconst size = ${paths};\nconsole.log(before, ${LOADED}, size);`, PRELOAD);
  expect(out).toBe(`[false,false] [false,true] ${without}`);
});

it("pulumi.automation and pulumi.provider load when first read, the same modules as imported by path", () => {
  const loaded = `((files) => [/[\\\\/]automation[\\\\/]cmd\\.js$/, /[\\\\/]provider[\\\\/]server\\.js$/].map((re) => files.some((f) => re.test(f))).join())(Object.keys(require.cache))`;
  const out = program(
    `import { createRequire } from "node:module";\nconst require = createRequire(import.meta.url);\nconst pulumi = require("@pulumi/pulumi");\nconst before = ${loaded};\n`
    + `const same = pulumi.automation.LocalWorkspace === require("@pulumi/pulumi/automation").LocalWorkspace && typeof pulumi.provider.main === "function";\n`
    + `console.log(before, ${loaded}, same, Object.keys(pulumi.automation).includes("LocalWorkspace"));`,
    PRELOAD,
  );
  expect(out).toBe("false,false true,true true true");
});

describe("the run entry's tracing", () => {
  /** A program that takes the run entry's tracing module as the entry does; prints `[SDK loaded, ...]` then `extra`. */
  const tracing = (extra: string, nodeArgs: string[] = []) => program(
    `import { createRequire } from "node:module";\nconst require = createRequire(import.meta.url);\nconst tracing = require("@pulumi/pulumi/cmd/run/tracing.js");\n`
    + `const sdk = () => Object.keys(require.cache).some((f) => /[\\\\/]@opentelemetry[\\\\/]sdk-trace-base[\\\\/]/.test(f));\n`
    + `const before = sdk();\n${extra}`,
    nodeArgs,
  );
  const SPAN = `const span = tracing.newSpan("language-runtime.run");\nconst opened = JSON.stringify({ recording: span.isRecording(), context: span.spanContext() });\nspan.end();\ntracing.stop();\n`;

  it("stays unloaded under the preload without --tracing; spans open as the real module opens them then", () => {
    const real = tracing(`${SPAN}console.log(before, sdk(), opened);`);
    expect(real).toMatch(/^true true \{"recording":false,/);
    const deferred = tracing(`${SPAN}console.log(before, sdk(), opened);`, PRELOAD);
    expect(deferred).toBe(real.replace(/^true true/, "false false"));
  });

  it("loads when tracing starts, whose spans then record", () => {
    const out = tracing(`tracing.start("http://127.0.0.1:9/api/v2/spans");\nconsole.log(before, sdk(), tracing.newSpan("language-runtime.run").isRecording());`, PRELOAD);
    expect(out).toBe("false true true");
  });
});

describe("the closure serializer's debugger", () => {
  it("is not loaded by importing the package (no debugger, no V8 flag set) nor by the preload", () => {
    const loaded = 'import { createRequire } from "node:module";\nimport { isProxy } from "node:util/types";\nconst require = createRequire(import.meta.url);\n'
      + 'const hooks = require.cache[require.resolve("@pulumi/pulumi/runtime/closure/v8Hooks.js")];\nconsole.log(hooks === undefined ? "absent" : isProxy(hooks.exports) ? "deferred" : "loaded");\n';
    expect(program(`import "pulumi-audience";\n${loaded}`)).toBe("deferred");
    expect(program(`import "@pulumi/pulumi";\n${loaded}`, PRELOAD)).toBe("deferred");
  });

  it("turns on when a function is first serialized, whose errors still name the files of functions parsed before", () => {
    writeFileSync(join(dir, "helper.mjs"), 'import { createServer } from "node:net";\nconst server = createServer();\nexport function bad() { return server.listen(); }\n');
    const early = join(dir, "early.cjs");
    writeFileSync(early, [
      'const inspector = require("node:inspector");',
      "globalThis.sessions = 0;",
      "const connect = inspector.Session.prototype.connect;",
      "inspector.Session.prototype.connect = function () { globalThis.sessions++; return connect.call(this); };",
      "// As @pulumi/pulumi's run entry does before it loads the program.",
      'const hooks = require("node:module").createRequire(process.cwd() + "/noop.js").resolve("@pulumi/pulumi/runtime/closure/v8Hooks.js");',
      "globalThis.started = require(hooks).isInitializedAsync();",
      "",
    ].join("\n"));
    const source = [
      'import { createRequire } from "node:module";',
      `import { bad } from ${JSON.stringify(join(dir, "helper.mjs"))};`,
      "await globalThis.started;",
      "const atStart = globalThis.sessions;",
      'const pulumi = createRequire(import.meta.url)("@pulumi/pulumi");',
      'let error = "";',
      "try { await pulumi.runtime.serializeFunction(() => bad()); } catch (e) { error = String(e.message).split(\"\\n\").slice(0, 4).join(\" | \"); }",
      "console.log(JSON.stringify({ atStart, after: globalThis.sessions, error }));",
      "",
    ].join("\n");
    /** What the program prints, its own file (named anew each run) called program.mjs. */
    const run = (nodeArgs: string[]) => JSON.parse(program(source, nodeArgs).replace(/\bp[a-z0-9]+\.mjs\b/g, "program.mjs")) as { atStart: number; after: number; error: string };
    // Pulumi's order: the debugger on before the program loads.
    const control = run(["--require", early]);
    expect(control).toMatchObject({ atStart: 1, after: 1, error: expect.stringContaining("function 'bad': helper.mjs(3,19)") });
    expect(run([...PRELOAD, "--require", early])).toEqual({ ...control, atStart: 0 });
  });
});
