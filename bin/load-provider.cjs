// Loads the installed `pulumi-audience/provider` for the `__provider` shim that resources record in state
// (provider/runtime/resources/shim.ts), and is what that shim hands Pulumi's dynamic-provider host. Plain CommonJS
// in the oldest syntax, so that any Node running the host can load it and say why the provider cannot load, and
// what to do.
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

/**
 * What the shim's `handler()` answers the host for the program in `dir`. The host keeps this object before it calls
 * `configure` and never calls `configure` again, so every method it looks up is an own method that cannot answer
 * without the provider: were one missing, the host would answer for it (a delete "succeeds", a read echoes the
 * state). The provider is loaded on the first call; a load that failed is tried again on the next call, with the
 * configure request saved, and fails each call with one paragraph: which module, from which directory, on which
 * Node, what to do.
 */
function dynamicProvider(dir) {
  let installed; // once loaded and configured
  let request; // configure's, for each provider loaded

  function ready() {
    if (installed) return Promise.resolve(installed);
    let loaded;
    try {
      loaded = loadProvider(dir);
    } catch (e) {
      return Promise.reject(new Error("cannot load pulumi-audience/provider from " + dir + " on Node " + process.version + ": " +
        String(e.message).split("\n")[0] + ". Nothing was read, changed or deleted. To fix: " + (e.fix || "npm install pulumi-audience there") + "."));
    }
    return Promise.resolve(request ? loaded.configure(request) : undefined).then(function () { return (installed = loaded); });
  }

  const provider = {
    configure: function (req) { request = req; installed = undefined; return ready().then(function () {}); },
  };
  ["check", "diff", "create", "read", "update", "delete"].forEach(function (method) {
    provider[method] = function () {
      const args = arguments;
      return ready().then(function (loaded) { return loaded[method].apply(loaded, args); });
    };
  });
  return provider;
}

module.exports = { loadProvider: loadProvider, dynamicProvider: dynamicProvider };
