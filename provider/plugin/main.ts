#!/usr/bin/env node
// `pulumi-resource-audience`: the engine starts the plugin and reads the port it prints on the first line of stdout.
// Its argument is the engine's address, where warnings and progress go (its Log service).
import { engineAddressOf } from "./engine-log.ts";
import { whenEngineGone } from "../protocol/engine-watch.ts";
import { servePlugin } from "./server.ts";

const engineAddress = engineAddressOf(process.argv.slice(2));
const plugin = await servePlugin(engineAddress ? { engineAddress } : {});
// A string, so Node prints it without colour.
console.log(String(plugin.port));
const stop = () => void plugin.close().then(() => process.exit(0));
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, stop);
// Calls of an engine that is gone cannot be answered: what is still in flight gets a few seconds, no more.
if (engineAddress) whenEngineGone(engineAddress, () => { stop(); setTimeout(() => process.exit(0), 5_000).unref(); });
