// Which Node this package runs on (package.json engines.node, ">=MAJOR.MINOR"), and the one line that says so.
// Plain CommonJS in the oldest syntax, so that any Node can load it and report, instead of failing on `.ts` files.
"use strict";

const required = require("../package.json").engines.node;

function parts(version) {
  return String(version).replace(/^[^\d]*/, "").split(".").map(function (n) { return Number.parseInt(n, 10) || 0; });
}

/** The line to print when `version` (such as process.versions.node) is older than required; undefined when it is not. */
function nodeProblem(version) {
  const have = parts(version);
  const need = parts(required);
  for (let i = 0; i < 3; i++) {
    if ((have[i] || 0) > (need[i] || 0)) return undefined;
    if ((have[i] || 0) < (need[i] || 0)) {
      return "pulumi-audience needs Node " + required.replace(/^>=\s*/, ">= ") + " (this is Node " + version + "): install it from https://nodejs.org/ or with a version manager (`nvm install 22`), put it first on PATH, then run again";
    }
  }
  return undefined;
}

/** Stops the process with that line on stderr (exit status 1) when its Node is too old. */
function stopIfTooOld() {
  const problem = nodeProblem(process.versions.node);
  if (problem) {
    process.stderr.write("error: " + problem + "\n");
    process.exit(1);
  }
}

module.exports = { requiredNode: required, nodeProblem: nodeProblem, stopIfTooOld: stopIfTooOld };
