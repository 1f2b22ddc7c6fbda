// The preload of Pulumi programs that use this package (`nodeargs: --require=pulumi-audience/require-node` in
// Pulumi.yaml, as `audience new` writes it), so that the Pulumi CLI's runs get what the local engine gives its own:
// - On too old a Node it stops the process with one line saying which Node to get, where the program would
//   otherwise fail on its first `.ts` file with `Unknown file extension ".ts"`; on a @pulumi/pulumi this package does
//   not support (pulumi-version.cjs), with one line saying which versions it supports.
// - A program that throws prints its error and exits instead of hanging: the Pulumi runtime installs
//   source-map-support, whose stack lines point into @pulumi/pulumi's TypeScript sources
//   (".../node_modules/@pulumi/resource.ts:1:2"), and Node 22's util.inspect loops forever on such a line. Installed
//   here first, without source maps and without its stack formatter, it keeps the runtime's install from adding
//   either: V8 formats stacks on the compiled files.
// - The runtime captures no stack trace with each promise it makes (promise-stacks.cjs) unless
//   PULUMI_DEBUG_PROMISE_LEAKS asks for them.
// - The runtime keeps its traces of each resource call to itself instead of sending them to the engine one round trip
//   at a time (runtime-traces.cjs) unless AUDIENCE_RUNTIME_TRACES asks for them.
// - The runtime formats a program's error without colors (plain-errors.cjs), which Node 22 does at once where its
//   colored form of some stack lines takes half a minute.
// - A failure the runtime has reported already (a lookup feeding resources) is not followed by Node's
//   "PromiseRejectionHandledWarning" for each output it reaches, when the runtime handles them late, writing the stack's
//   outputs.
"use strict";

require("./node-version.cjs").stopIfTooOld();
try {
  require("./pulumi-version.cjs");
} catch (error) {
  process.stderr.write("error: " + error.message + "\n");
  process.exit(1);
}

let sourceMapSupport;
try {
  // The copy the runtime's `require("source-map-support/register")` loads: resolved from the main script, the
  // runtime's run entry (@pulumi/pulumi/cmd/run) as the language host starts it.
  sourceMapSupport = require(require("module").createRequire(process.argv[1]).resolve("source-map-support"));
} catch {
  // No main script (`node -e`), or none that can load source-map-support: nothing to keep from hanging.
}
if (sourceMapSupport) {
  sourceMapSupport.install({ overrideRetrieveSourceMap: true, retrieveSourceMap: () => null });
  Error.prepareStackTrace = undefined;
}

// A listener of its own keeps Node from warning; the rejection was reported when it happened.
process.on("rejectionHandled", () => undefined);

require("./lazy-closure.cjs");
// After the deferrals above: they load part of the runtime.
require("./promise-stacks.cjs");
require("./runtime-traces.cjs");
require("./plain-errors.cjs");
