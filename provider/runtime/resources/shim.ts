// The `__provider` every resource records in state. Pulumi serializes it with its closure, so it must capture
// nothing: no key, no module, no ESM graph. The host always calls `configure` first (once per process); that
// call loads the installed `pulumi-audience/provider` and installs its methods on this very object, so the
// shim is one small function, identical for every resource, and refresh/destroy run the installed version.
import type * as pulumi from "@pulumi/pulumi";

interface Shim {
  configure(req: pulumi.dynamic.ConfigureRequest): Promise<void>;
}

// `require` is the host's CommonJS require (never captured by Pulumi's closure serializer); resolving from the
// working directory finds the copy installed for the program, or the package itself through its exports map.
/* eslint-disable @typescript-eslint/no-require-imports */
export const providerShim: Shim = {
  configure(req) {
    const provider = require("module").createRequire(process.cwd() + "/")("pulumi-audience/provider").provider;
    Object.assign(this, provider);
    return provider.configure(req);
  },
};
/* eslint-enable @typescript-eslint/no-require-imports */

/** The shim as the dynamic resource constructor takes it: the other methods exist once `configure` has run. */
export const provider = providerShim as Shim as pulumi.dynamic.ResourceProvider;
