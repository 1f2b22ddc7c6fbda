// The `__provider` every resource records in state: the CommonJS module the dynamic-provider host loads
// (`handler()` answers the provider). Every resource carries it in its inputs and outputs, through the program's
// registration, the engine's answer and the state, so it is a few lines: it holds no key, no module, no ESM graph.
// `handler()` loads the installed `pulumi-audience/load-provider` (bin/load-provider.cjs, which any Node loads) and
// answers its `dynamicProvider`, which loads the provider on the first call and says why it cannot; when the package
// itself cannot be found, `handler()` fails with the same paragraph and the host, which keeps only what it answered,
// asks again on the next call. So refresh/destroy run the installed version, and a provider that cannot load fails
// every call: none is answered by the host's defaults. Written as text rather than serialized from a function by
// Pulumi's closure serializer, which loads TypeScript's compiler into every program to produce the same few lines.
//
// One text per family, its first line naming the family: a program registers no `__kind` (each registered member
// costs the Pulumi runtime an output and its promises), and the lifecycle takes the family from the shim
// (lifecycle/hosted.ts). The host loads and configures one provider per text: each is the same installed provider.
//
// `require` is the host's CommonJS require; resolving from the working directory (the project's) finds the copy
// installed for the program, or the package itself through its exports map.
import { PROVIDER_KEY } from "../../protocol/markers.ts";
import { KIND_KEY } from "../markers.ts";

/** What every family's shim holds after the line naming its family. */
export const SHIM_BODY = `exports.handler = () => {
  const dir = process.cwd();
  try {
    return require("module").createRequire(dir + "/")("pulumi-audience/load-provider").dynamicProvider(dir);
  } catch (e) {
    throw new Error("cannot load pulumi-audience/provider from " + dir + " on Node " + process.version + ": " +
      String(e.message).split("\\n")[0] + ". Nothing was read, changed or deleted. To fix: npm install pulumi-audience there.");
  }
};
`;

const KIND_LINE = /^exports\.kind = "([a-z_]+)";\n/;

/** The shim of one family's resources (its collection, as `__kind` names it). */
export function providerModule(collection: string): string {
  return `exports.kind = ${JSON.stringify(collection)};\n${SHIM_BODY}`;
}

/** The family a shim of `providerModule` names; undefined for any other text (the earlier shims name none). */
export function shimFamily(text: unknown): string | undefined {
  if (typeof text !== "string" || !text.endsWith(SHIM_BODY)) return undefined;
  const kind = KIND_LINE.exec(text);
  return kind && kind[0].length + SHIM_BODY.length === text.length ? kind[1] : undefined;
}

/** The family a resource's props name: its `__kind`, else the family of its shim (what a program registers). */
export function familyNamed(props: Record<string, unknown>): string | undefined {
  const kind = props[KIND_KEY];
  return typeof kind === "string" ? kind : shimFamily(props[PROVIDER_KEY]);
}

/** Props with the family their shim names as `__kind`, when they carry none (what a program registers). */
export function withFamily<P extends Record<string, unknown>>(props: P): P {
  if (typeof props !== "object" || props === null || KIND_KEY in props) return props;
  const kind = shimFamily(props[PROVIDER_KEY]);
  return kind === undefined ? props : { ...props, [KIND_KEY]: kind };
}

/**
 * The `__provider` texts of earlier versions, still found in states they wrote: a resource that carries one is this
 * package's as much as one that carries a `providerModule`. When SHIM_BODY changes, append it here, and have
 * `shimFamily` still read the families' texts around it.
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
  `exports.handler = () => provider;

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
`,
  // The shim every family shared, when each resource named its family in `__kind` as well.
  SHIM_BODY,
];

/** Whether a recorded `__provider` is this package's shim, of this version or an earlier one. */
export function isPackageShim(text: unknown): boolean {
  return shimFamily(text) !== undefined || (typeof text === "string" && EARLIER_PROVIDER_MODULES.includes(text));
}
