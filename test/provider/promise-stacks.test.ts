// The program preload and the package's entry points keep the Pulumi runtime from capturing a stack trace with each
// promise it makes, in the runtime of the language runtime's run entry, unless PULUMI_DEBUG_PROMISE_LEAKS asks for
// them; with another main script they load nothing of the runtime.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { expect, it } from "vitest";

const BIN = join(import.meta.dirname, "..", "..", "bin");
const RUN_ENTRY = createRequire(join(process.cwd(), "noop.js")).resolve("@pulumi/pulumi/cmd/run/index.js");
const DEBUGGABLE = join(RUN_ENTRY, "..", "..", "..", "runtime", "debuggable.js");

/** In a fresh process, patches for `main`; answers whether the runtime was loaded and a promise's captured stack. */
function stackOf(main: string, env: NodeJS.ProcessEnv = {}): { loaded: boolean; stack?: string } {
  const code = `
    require(${JSON.stringify(join(BIN, "promise-stacks.cjs"))}).skipPromiseStacks(${JSON.stringify(main)});
    const loaded = ${JSON.stringify(DEBUGGABLE)} in require.cache;
    const p = Promise.resolve();
    require(${JSON.stringify(DEBUGGABLE)}).debuggablePromise(p, "test");
    console.log(JSON.stringify({ loaded, stack: p._debugStackTrace }));
  `;
  const { PULUMI_DEBUG_PROMISE_LEAKS: _, ...rest } = process.env;
  const run = spawnSync(process.execPath, ["-e", code], { encoding: "utf8", env: { ...rest, ...env } });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout.trim().split("\n").at(-1)!) as { loaded: boolean; stack?: string };
}

it("captures no stack for the run entry's runtime", () => {
  expect(stackOf(RUN_ENTRY)).toEqual({ loaded: true, stack: "Error" });
});

it("keeps the stacks when PULUMI_DEBUG_PROMISE_LEAKS asks for them", () => {
  const { stack } = stackOf(RUN_ENTRY, { PULUMI_DEBUG_PROMISE_LEAKS: "1" });
  expect(stack).toMatch(/\n\s+at /);
});

it("leaves the runtime alone under another main script", () => {
  const { loaded, stack } = stackOf(join(process.cwd(), "index.js"));
  expect(loaded).toBe(false);
  expect(stack).toMatch(/\n\s+at /);
});
