// Keeps modules of @pulumi/pulumi that a program does not use out of it until first used. Importing @pulumi/pulumi
// loads at its top its closure serializer's `typescript-shim` (the whole compiler: about 0.1 s and 45 MB) and
// `codePaths` (npm's arborist with pacote and sigstore: about 500 modules), used only when a function is serialized
// or its code paths computed, which this package's resources never ask for, and `pulumi.automation` and
// `pulumi.provider`; its run entry loads OpenTelemetry's SDK and exporters (about 230 modules) for `--tracing`, given
// or not, and turns the debugger on for the serializer. Each is put in Node's module cache as a stand-in that loads the
// real module on first use (the debugger is turned on on first use), for the @pulumi/pulumi the program resolves
// (from its directory) and the one this package resolves. A module is deferred only where it is and names what the
// stand-in answers for it, as in 3.270: in a version where one moved, it loads as the runtime loads it. Loaded before
// @pulumi/pulumi: by the preload `pulumi-audience/require-node` and by the package's entry points.
"use strict";

const { existsSync, readFileSync } = require("node:fs");
const Module = require("node:module");
const { dirname, join } = require("node:path");

/** The directory of the @pulumi/pulumi `from` resolves, or undefined. */
function pulumiOf(from) {
  try {
    return dirname(Module.createRequire(join(from, "noop.js")).resolve("@pulumi/pulumi/package.json"));
  } catch {
    return undefined;
  }
}

/** Whether `file` is there and exports each of `names` (as TypeScript compiles an export: `exports.<name> =`). */
function exportsAll(file, names) {
  if (names.length === 0) return existsSync(file);
  let text;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return false;
  }
  return names.every((name) => text.includes(`exports.${name} `) || text.includes(`exports.${name}=`));
}

/**
 * Puts a stand-in for `file` in the module cache: reading a member loads the real module, but the members named in
 * `calls`, which are read when @pulumi/pulumi loads and only called later, are functions that load it when called,
 * and those of `until` are answered by the stand-in's own function until something else has loaded it. `loaded` gets
 * the real module once it loads, before anything reads it.
 * `esModule`: the module is compiled from TypeScript (it marks itself `__esModule`), so the stand-in says so too and
 * an `import * as` of it takes the stand-in itself instead of copying its members. `needs`: what else `loaded` uses.
 */
function defer(file, { calls = [], esModule = false, until = {}, needs = [], loaded = () => undefined } = {}) {
  if (Module._cache[file]) return; // already loaded (or deferred): nothing to spare
  if (!exportsAll(file, [...calls, ...Object.keys(until), ...needs])) return;
  let real;
  const load = () => {
    if (real === undefined) {
      delete Module._cache[file];
      real = Module.createRequire(file)(file);
      loaded(real);
    }
    return real;
  };
  const lazy = new Module(file, null);
  lazy.filename = file;
  lazy.paths = Module._nodeModulePaths(dirname(file));
  lazy.exports = new Proxy({}, {
    get: (_, key) => {
      if (esModule && key === "__esModule") return true;
      if (Object.hasOwn(until, key)) return (...args) => (real === undefined ? until[key](...args) : real[key](...args));
      return calls.includes(key) ? (...args) => load()[key](...args) : Reflect.get(load(), key);
    },
    has: (_, key) => Reflect.has(load(), key),
    ownKeys: () => Reflect.ownKeys(load()),
    getOwnPropertyDescriptor: (_, key) => {
      const found = Reflect.getOwnPropertyDescriptor(load(), key);
      // A proxy may report a member only as configurable while its target lacks it.
      return found && { ...found, configurable: true };
    },
  });
  lazy.loaded = true;
  Module._cache[file] = lazy;
}

/**
 * The run entry starts the closure serializer's inspector session before the program runs: the debugger on, told of
 * every script parsed, which slows the whole program (about a tenth of a program of 500 cohorts). Only a serialized
 * function needs it: deferred, the module starts its session when the serializer first asks for it, and this then
 * turns the debugger off and on again, so that it is told of the scripts parsed before (reported when it turns on,
 * before the module listens) and names their files in its errors as it does when started first.
 */
function sessionToldOfEarlierScripts(hooks) {
  const session = hooks.getSessionAsync;
  let ready;
  hooks.getSessionAsync = () => (ready ??= session().then(async (started) => {
    const post = (method) => new Promise((resolve, reject) => started.post(method, (error) => (error ? reject(error) : resolve())));
    await post("Debugger.disable");
    await post("Debugger.enable");
    return started;
  }));
}

for (const from of new Set([process.cwd(), __dirname])) {
  const pulumi = pulumiOf(from);
  if (!pulumi) continue;
  defer(join(pulumi, "typescript-shim.js"));
  // runtime/index.js re-exports `computeCodePaths` as it loads.
  defer(join(pulumi, "runtime", "closure", "codePaths.js"), { calls: ["computeCodePaths"] });
  // `pulumi.automation` (execa, js-yaml) and `pulumi.provider` (a provider's own gRPC server), which a program
  // reaches only through those names.
  defer(join(pulumi, "automation", "index.js"), { esModule: true });
  defer(join(pulumi, "provider", "index.js"), { esModule: true });
  // The run entry's tracing: `start` (with `--tracing`) loads it. Until then `stop` has nothing to end, and `newSpan`
  // opens a span on the OpenTelemetry API's tracer as the real one does before `start` (no root span to fall back on).
  const tracing = join(pulumi, "cmd", "run", "tracing.js");
  const apiSpan = (name) => {
    const api = Module.createRequire(tracing)("@opentelemetry/api");
    return api.trace.getTracer("nodejs-runtime").startSpan(name, undefined, api.trace.setSpan(api.context.active(), api.trace.getActiveSpan()));
  };
  defer(tracing, { esModule: true, calls: ["start"], until: { newSpan: apiSpan, stop: () => undefined } });
  defer(join(pulumi, "runtime", "closure", "v8Hooks.js"), { esModule: true, until: { isInitializedAsync: async () => undefined }, needs: ["getSessionAsync"], loaded: sessionToldOfEarlierScripts });
}
