#!/usr/bin/env node
// `pulumi-resource-audience`: the engine starts the plugin and reads the port it prints on the first line of stdout.
// Arguments (the engine's address, logging flags) are not needed: the plugin logs nothing through the engine.
import { servePlugin } from "./server.ts";

const plugin = await servePlugin();
// A string, so Node prints it without colour.
console.log(String(plugin.port));
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => void plugin.close().then(() => process.exit(0)));
}
