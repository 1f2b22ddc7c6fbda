// The Pulumi runtime a program runs on: the @pulumi/pulumi whose language runtime's run entry is the main script, as
// the Pulumi CLI and `audience run` start a program. The preload's patches of the runtime (promise-stacks.cjs,
// runtime-traces.cjs, plain-errors.cjs) apply to that runtime only, and to nothing under any other main script, nor to
// a module a version of @pulumi/pulumi no longer has.
"use strict";

const { dirname, join, sep } = require("node:path");

const RUN_ENTRY = join("@pulumi", "pulumi", "cmd", "run", "index.js");

/** The runtime's module at `path` (from its package's root) when `main` is the run entry and the runtime has it;
 * undefined otherwise. */
function runtimeModule(main, path) {
  if (typeof main !== "string" || !main.endsWith(sep + RUN_ENTRY)) return undefined;
  const file = join(dirname(main), "..", "..", path);
  try {
    return require(file);
  } catch (error) {
    if (error && error.code === "MODULE_NOT_FOUND" && String(error.message).includes(file)) return undefined;
    throw error;
  }
}

module.exports = { runtimeModule };
