// What the package's manifest says of the plugin, apart from its configuration: a program's native classes read the
// version without loading the configuration's schemas.
import { createRequire } from "node:module";

interface Manifest {
  version: string;
  /** How Pulumi finds the plugin (`pulumi install`, generated SDKs): `server` is where releases are downloaded. */
  pulumi?: { server?: string };
}

const manifest = createRequire(import.meta.url)("pulumi-audience/package.json") as Manifest;

/** The plugin's version is the package's. */
export const VERSION: string = manifest.version;

/** Where Pulumi downloads the plugin's releases: the package's `pulumi.server`, which `npm run plugin:pack` sets. */
export const PLUGIN_DOWNLOAD_URL: string | undefined = manifest.pulumi?.server;
