// The `__provider` every resource records in state: the CommonJS module the dynamic-provider host loads
// (`handler()` answers the provider). It holds nothing: no key, no module, no ESM graph. The host always calls
// `configure` first (once per process); that call loads the installed `pulumi-audience/provider` and installs its
// methods on this very object, so the shim is one small text, identical for every resource, and refresh/destroy
// run the installed version. Written as text rather than serialized from a function by Pulumi's closure
// serializer, which loads TypeScript's compiler into every program to produce the same few lines.
//
// `require` is the host's CommonJS require; resolving from the working directory finds the copy installed for the
// program, or the package itself through its exports map.
export const PROVIDER_MODULE = `exports.handler = () => provider;

const provider = {
  configure(req) {
    const installed = require("module").createRequire(process.cwd() + "/")("pulumi-audience/provider").provider;
    Object.assign(this, installed);
    return installed.configure(req);
  },
};
`;
