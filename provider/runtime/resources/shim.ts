// The `__provider` every resource records in state: the CommonJS module the dynamic-provider host loads
// (`handler()` answers the provider). It holds nothing: no key, no module, no ESM graph. Each method loads the
// installed `pulumi-audience/provider` through `pulumi-audience/load-provider` (bin/load-provider.cjs, which any Node
// loads, to say why the provider cannot load); a load that succeeded is kept, one that failed is tried again on the
// next call with the configure request saved. So refresh/destroy run the installed version, and a provider that
// cannot load fails every call with one paragraph: which module, from which directory, on which Node, what to do.
// The host caches this object before it calls `configure` and never calls `configure` again, so every method the
// host looks up must be an own method that cannot answer without the provider: were a method missing, the host would
// answer for it (a delete "succeeds", a read echoes the state). Written as text rather than serialized from a
// function by Pulumi's closure serializer, which loads TypeScript's compiler into every program to produce the same
// few lines.
//
// `require` is the host's CommonJS require; resolving from the working directory (the project's) finds the copy
// installed for the program, or the package itself through its exports map.
export const PROVIDER_MODULE = `exports.handler = () => provider;

let installed; // once loaded and configured
let request; // configure's, for each provider loaded

async function ready() {
  if (installed) return installed;
  const dir = process.cwd();
  let loaded;
  try {
    loaded = require("module").createRequire(dir + "/")("pulumi-audience/load-provider").loadProvider(dir);
  } catch (e) {
    throw new Error("cannot load pulumi-audience/provider from " + dir + " on Node " + process.version + ": " +
      String(e.message).split("\\n")[0] + ". Nothing was read, changed or deleted. To fix: " + (e.fix || "npm install pulumi-audience there") + ".");
  }
  if (request) await loaded.configure(request);
  return (installed = loaded);
}

const provider = {
  async configure(req) { request = req; installed = undefined; await ready(); },
};
for (const method of ["check", "diff", "create", "read", "update", "delete"]) {
  provider[method] = async (...args) => (await ready())[method](...args);
}
`;

/**
 * The `__provider` texts of earlier versions, still found in states they wrote: a resource that carries one is this
 * package's as much as one that carries PROVIDER_MODULE. Append the current text here whenever it changes.
 */
export const EARLIER_PROVIDER_MODULES: readonly string[] = [
  `exports.handler = () => provider;

const provider = {
  configure(req) {
    const installed = require("module").createRequire(process.cwd() + "/")("pulumi-audience/provider").provider;
    Object.assign(this, installed);
    return installed.configure(req);
  },
};
`,
];

/** Whether a recorded `__provider` is this package's shim, of this version or an earlier one. */
export function isPackageShim(text: unknown): boolean {
  return text === PROVIDER_MODULE || (typeof text === "string" && EARLIER_PROVIDER_MODULES.includes(text));
}
