// Keeps TypeScript's compiler out of programs that never serialize a function. Importing @pulumi/pulumi loads its
// closure serializer, whose modules require `typescript-shim` (the whole compiler: about 0.1 s and 45 MB) at
// their top; they use it only when a function is serialized, which this package's resources never ask for. The
// shim is put in Node's module cache as an object that loads the compiler on first use, for the @pulumi/pulumi
// the program resolves (from its directory) and the one this package resolves. Loaded before @pulumi/pulumi: by
// the preload `pulumi-audience/require-node` and first by the package's entry points.
"use strict";

const Module = require("node:module");
const { dirname, join } = require("node:path");

/** The typescript-shim of the @pulumi/pulumi `from` resolves, or undefined. */
function shimOf(from) {
  try {
    const pkg = Module.createRequire(join(from, "noop.js")).resolve("@pulumi/pulumi/package.json");
    return join(dirname(pkg), "typescript-shim.js");
  } catch {
    return undefined;
  }
}

function deferShim(file) {
  if (Module._cache[file]) return; // already loaded (or deferred): nothing to spare
  let compiler;
  const load = () => {
    if (compiler === undefined) {
      delete Module._cache[file];
      compiler = Module.createRequire(file)(file);
    }
    return compiler;
  };
  const lazy = new Module(file, null);
  lazy.filename = file;
  lazy.paths = Module._nodeModulePaths(dirname(file));
  lazy.exports = new Proxy({}, {
    get: (_, key) => Reflect.get(load(), key),
    has: (_, key) => Reflect.has(load(), key),
  });
  lazy.loaded = true;
  Module._cache[file] = lazy;
}

for (const from of new Set([process.cwd(), __dirname])) {
  const file = shimOf(from);
  if (file) deferShim(file);
}
