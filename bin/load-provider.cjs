// Loads the installed `pulumi-audience/provider` for the `__provider` shim that resources record in state
// (provider/runtime/resources/shim.ts). Plain CommonJS in the oldest syntax, so that any Node running Pulumi's
// dynamic-provider host can load it and say why the provider cannot load, and what to do.
"use strict";

const nodeModule = require("module");
const nodeVersion = require("./node-version.cjs");

function failure(cause, fix) {
  const error = new Error(cause.replace(/\.$/, ""));
  error.fix = fix;
  return error;
}

const NODE_FIX = "put Node " + nodeVersion.requiredNode.replace(/^>=\s*/, ">= ") + " first on PATH (https://nodejs.org/, or `nvm install 22`)";

/** Conditions without `source`: the built files of this package, not its TypeScript sources. */
function withoutSource(specifier, context, next) {
  return next(specifier, Object.assign({}, context, { conditions: context.conditions.filter(function (c) { return c !== "source"; }) }));
}

/**
 * The provider installed for the program in `dir`. Throws an error whose `fix` says what to do when it cannot load:
 * a Node too old, one that cannot require() ES modules, the package not built or a dependency missing.
 */
function loadProvider(dir) {
  const problem = nodeVersion.nodeProblem(process.versions.node);
  if (problem) throw failure("pulumi-audience needs Node " + nodeVersion.requiredNode.replace(/^>=\s*/, ">= "), NODE_FIX);
  const from = nodeModule.createRequire(dir + "/");
  try {
    return from("pulumi-audience/provider").provider;
  } catch (error) {
    if (error.code === "ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING" && nodeModule.registerHooks) {
      // --conditions=source selects TypeScript sources, which Node does not run from node_modules: load the built files.
      const hooks = nodeModule.registerHooks({ resolve: withoutSource });
      try {
        return from("pulumi-audience/provider").provider;
      } finally {
        hooks.deregister();
      }
    }
    if (error.code === "ERR_REQUIRE_ESM") throw failure(error.message, NODE_FIX + ", and leave --no-experimental-require-module out of NODE_OPTIONS");
    if (error.code === "MODULE_NOT_FOUND") throw failure(error.message, "run `npm install` there (for a checkout of pulumi-audience, `npm run build` in it)");
    throw failure(error.message, "remove --conditions=source and other loader flags from NODE_OPTIONS, or reinstall pulumi-audience (`npm install`)");
  }
}

module.exports = { loadProvider: loadProvider };
