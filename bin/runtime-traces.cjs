// Keeps the Pulumi runtime's own traces of each resource call in the program: "Registering resource", "RegisterResource
// RPC prepared" and "finished" (the whole answer written out), and the same for reads, lookups and outputs. The runtime
// sends each debug message to the engine's Log service after the one before has been answered, and a program cannot
// end before they are all through: three round trips and more per resource. Run as the Pulumi CLI runs it, a program
// of 5,000 cohorts takes about half the time without them and peaks 220 MB lower (README, "Starting a program").
// The answers whose whole text an "RPC finished" trace writes out are written as their message's name instead: the
// runtime builds a trace's text before handing it over (about 2% of a program's CPU, more the larger the answers).
// The program's own `pulumi.log.debug` messages go as before; AUDIENCE_RUNTIME_TRACES=1 sends the runtime's too. Only
// the runtime of the language runtime's run entry is patched (the main script, as the Pulumi CLI and `audience run`
// start a program); with any other main script, nothing is. Nor is a runtime whose log or answers are not where 3.270 has
// them: each part is patched only where its target is as expected. Applied when loaded: by the preload
// `pulumi-audience/require-node`, and by the package's entry points for programs without it.
"use strict";

const { runtimeModule } = require("./run-entry.cjs");

/** How the runtime's traces begin (@pulumi/pulumi's runtime/resource.js and runtime/invoke.js); failures are kept. */
const TRACES = [
  "Registering resource: ",
  "RegisterResource RPC prepared: ",
  "RegisterResource RPC finished: ",
  "Resource RPC serialization requested: ",
  "RegisterResourceOutputs RPC prepared: ",
  "RegisterResourceOutputs RPC finished: ",
  "Reading resource: ",
  "ReadResource RPC prepared: ",
  "ReadResource RPC finished: ",
  "Getting resource: ",
  "getResource Invoke RPC finished: ",
  "Checking resource existence: ",
  "Invoke RPC finished: ",
  "Call RPC prepared: ",
  "Call RPC finished: ",
];

/** The runtime's answers (by the module of @pulumi/pulumi that defines them) whose text a trace writes out. */
const ANSWERS = [
  ["proto/resource_pb.js", ["RegisterResourceResponse", "ReadResourceResponse"]],
  ["proto/provider_pb.js", ["InvokeResponse", "CallResponse"]],
];

/** Whether `message` is one of the runtime's traces of a resource call. */
function isRuntimeTrace(message) {
  return typeof message === "string" && TRACES.some((start) => message.startsWith(start));
}

/** Patches the runtime of the run entry `main` (`process.argv[1]`); does nothing for another script. */
function skipRuntimeTraces(main) {
  const log = process.env.AUDIENCE_RUNTIME_TRACES ? undefined : runtimeModule(main, "log/index.js");
  if (typeof log?.debug !== "function") return;
  const send = log.debug;
  log.debug = function (message, resource, streamId, ephemeral) {
    return isRuntimeTrace(message) ? Promise.resolve() : send.call(this, message, resource, streamId, ephemeral);
  };
  for (const [path, names] of ANSWERS) {
    const messages = runtimeModule(main, path);
    for (const name of names) {
      const answer = messages?.[name];
      if (typeof answer === "function" && answer.prototype) answer.prototype.toString = () => name;
    }
  }
}

skipRuntimeTraces(process.argv[1]);

module.exports = { skipRuntimeTraces };
