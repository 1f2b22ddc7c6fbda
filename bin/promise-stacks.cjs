// Keeps the Pulumi runtime from capturing a stack trace with each promise it makes (`debuggablePromise`: four for
// every property of every resource, and more for each registration), which it prints only with
// PULUMI_DEBUG_PROMISE_LEAKS set: without it, none is captured, and a program of 2,000 cohorts spends about a sixth
// less CPU. Only the runtime that runs the program is patched: the @pulumi/pulumi of the language runtime's run entry
// (the main script, as the Pulumi CLI and `audience run` start a program); with any other main script, nothing is, nor
// in a runtime whose `debuggablePromise` is not where 3.270 has it.
// Applied when loaded: by the preload `pulumi-audience/require-node`, and by the package's entry points for programs
// without it.
"use strict";

const { runtimeModule } = require("./run-entry.cjs");

/** Patches the runtime of the run entry `main` (`process.argv[1]`); does nothing for another script. */
function skipPromiseStacks(main) {
  const debuggable = process.env.PULUMI_DEBUG_PROMISE_LEAKS ? undefined : runtimeModule(main, "runtime/debuggable.js");
  if (typeof debuggable?.debuggablePromise !== "function") return;
  const capturing = debuggable.debuggablePromise;
  debuggable.debuggablePromise = function (p, ctx) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      return capturing.call(this, p, ctx);
    } finally {
      Error.stackTraceLimit = limit;
    }
  };
}

skipPromiseStacks(process.argv[1]);

module.exports = { skipPromiseStacks };
