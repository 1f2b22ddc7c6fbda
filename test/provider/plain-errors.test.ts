// The program preload and the package's entry points have the Pulumi runtime format a program's error without colors,
// in the runtime of the language runtime's run entry: the text of Node's plain inspect, at once, also for a stack
// whose colored form Node 22 spends half a minute on (a frame right under a scope's folder, as source-map-support
// names the runtime's frames in a program without the preload). With another main script nothing is loaded.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { expect, it } from "vitest";

const BIN = join(import.meta.dirname, "..", "..", "bin");
const RUN_ENTRY = createRequire(join(process.cwd(), "noop.js")).resolve("@pulumi/pulumi/cmd/run/index.js");
const ERROR_JS = join(RUN_ENTRY, "..", "error.js");

/** In a fresh process, patches for `main`, then has the runtime format an error thrown in an `apply` callback of
 * the runtime, as source-map-support names its frames: whether the runtime was loaded, and the text. */
function formatted(main: string): { loaded: boolean; text?: string } {
  const code = `
    require(${JSON.stringify(join(BIN, "plain-errors.cjs"))}).plainErrors(${JSON.stringify(main)});
    const loaded = ${JSON.stringify(ERROR_JS)} in require.cache;
    const error = new Error("getCohort: no cohorts with name \\"Nobody\\"");
    error.stack = "Error: " + error.message + "\\n    at applyHelperAsync (/p/node_modules/@pulumi/output.ts:519:25)";
    // Only once patched: unpatched, the colored inspect of this stack is the half-minute.
    const text = loaded ? require(${JSON.stringify(ERROR_JS)}).defaultErrorMessage(error) : undefined;
    console.log(JSON.stringify({ loaded, text }));
  `;
  const run = spawnSync(process.execPath, ["-e", code], { encoding: "utf8", timeout: 60_000 });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout.trim().split("\n").at(-1)!) as { loaded: boolean; text?: string };
}

it("formats the error of the run entry's runtime as the plain inspect does", () => {
  const { loaded, text } = formatted(RUN_ENTRY);
  expect(loaded).toBe(true);
  expect(text).toBe('Error: getCohort: no cohorts with name "Nobody"\n    at applyHelperAsync (/p/node_modules/@pulumi/output.ts:519:25)');
});

it("leaves the runtime alone under another main script", () => {
  expect(formatted(join(process.cwd(), "index.js"))).toEqual({ loaded: false });
});
