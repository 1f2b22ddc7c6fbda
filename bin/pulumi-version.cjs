// Which @pulumi/pulumi this package runs on (package.json peerDependencies, "^MAJOR.MINOR.PATCH"): the program's own,
// the one copy its resources register through (with a second copy, an Automation API program's first resource fails
// with "Request message serialization failure", and the runtime patches of bin/ reach only one of them). When the
// copy this package resolves is not a version it supports, loading this module throws one sentence saying which
// versions it supports, marked as Pulumi's RunError marks its own, so that Pulumi prints the sentence alone.
// Loaded first: by the preload `pulumi-audience/require-node`, and by the package's entry points.
"use strict";

const { dirname } = require("node:path");

const supported = require("../package.json").peerDependencies["@pulumi/pulumi"];

function parts(version) {
  return String(version).replace(/^[^\d]*/, "").split(/[.+-]/).slice(0, 3).map((n) => Number.parseInt(n, 10) || 0);
}

/** Whether `version` is one the caret range `supported` admits (its major version, from its floor on). */
function isSupported(version) {
  const have = parts(version);
  const floor = parts(supported);
  if (have[0] !== floor[0]) return false;
  for (let i = 1; i < 3; i++) if (have[i] !== floor[i]) return have[i] > floor[i];
  return true;
}

const WANTED = `@pulumi/pulumi ${supported} (${supported.replace(/^\^/, "")} or a later ${parts(supported)[0]}.x)`;

/**
 * What is wrong with the @pulumi/pulumi that `from` (a directory) resolves, as one sentence; undefined when it is a
 * version this package supports.
 */
function pulumiProblem(from = __dirname) {
  let manifest;
  try {
    manifest = require.resolve("@pulumi/pulumi/package.json", { paths: [from] });
  } catch {
    return `pulumi-audience needs ${WANTED} installed beside it, and none is: run \`npm install @pulumi/pulumi@${supported}\` in the program's folder`;
  }
  const { version } = require(manifest);
  if (isSupported(version)) return undefined;
  return `pulumi-audience supports ${WANTED}, and the program's is ${version} (${dirname(manifest)}): run \`npm install @pulumi/pulumi@${supported}\` in the program's folder`;
}

/** The error loading this module throws: Pulumi prints a RunError's message alone, without a stack. Coded as a
 * missing module's when none is installed. */
function unsupported(problem, missing) {
  const error = new Error(problem);
  error.__pulumiRunError = true;
  error.stack = `Error: ${problem}`;
  if (missing) error.code = "MODULE_NOT_FOUND";
  return error;
}

const problem = pulumiProblem();
if (problem) throw unsupported(problem, !problem.startsWith("pulumi-audience supports"));

module.exports = { supportedPulumi: supported, isSupported, pulumiProblem };
