// The Pulumi runtime a program runs on: the @pulumi/pulumi whose language runtime's run entry is the main script, as
// the Pulumi CLI and `audience run` start a program. The preload's patches of the runtime (promise-stacks.cjs,
// runtime-traces.cjs) apply to that runtime only, and to nothing under any other main script.
"use strict";

const { dirname, join, sep } = require("node:path");

const RUN_ENTRY = join("@pulumi", "pulumi", "cmd", "run", "index.js");

/** The runtime's module at `path` (from its package's root) when `main` is the run entry; undefined otherwise. */
function runtimeModule(main, path) {
  if (typeof main !== "string" || !main.endsWith(sep + RUN_ENTRY)) return undefined;
  return require(join(dirname(main), "..", "..", path));
}

module.exports = { runtimeModule };
