// Keeps a program's error from holding up its end for half a minute: the Pulumi runtime formats each error a program
// stops on (for the log, and for its trace even when it prints the message alone) with Node's colored util.inspect,
// and Node 22's colored inspect of a stack line naming a file right under a scope's folder
// (`node_modules/@pulumi/output.ts`, where source-map-support points the runtime's frames in a program without the
// preload) builds a string until V8 refuses it, about 30 s, before the runtime falls back to the plain inspect. The
// plain inspect comes first here: the same text without colors, at once. Only the runtime of the language runtime's
// run entry is patched (the main script, as the Pulumi CLI and `audience run` start a program); with any other main
// script, or where the runtime's formatter is not where 3.270 has it, nothing is. Applied when loaded: by the preload
// `pulumi-audience/require-node`, and by the package's entry points for programs without it.
"use strict";

const { inspect } = require("node:util");
const { runtimeModule } = require("./run-entry.cjs");

/** Patches the runtime of the run entry `main` (`process.argv[1]`); does nothing for another script. */
function plainErrors(main) {
  const errors = runtimeModule(main, "cmd/run/error.js");
  if (typeof errors?.defaultErrorMessage !== "function") return;
  const colored = errors.defaultErrorMessage;
  errors.defaultErrorMessage = function (err) {
    if (!err?.stack) return colored.call(this, err);
    try {
      return inspect(err);
    } catch {
      // Too large to inspect: the stack holds the message, as the runtime's own last resort has it.
      return typeof err.message === "string" ? String(err.stack) : String(err);
    }
  };
}

plainErrors(process.argv[1]);

module.exports = { plainErrors };
