#!/usr/bin/env node
// The `audience` resource provider plugin, as Pulumi starts it (`pulumi-resource-audience`): runs the plugin's
// bundle (scripts/build.ts); in a checkout without a build, its TypeScript sources under Node's type stripping with
// the `source` export condition. It prints its port on the first line of stdout; nothing else may come before it.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import nodeModule from "node:module";
import { fileURLToPath } from "node:url";

// As the CLI does (bin/audience.js): compiled code of the modules it loads is kept between starts, and each run
// waits for the plugin to start.
nodeModule.enableCompileCache?.();

const compiled = new URL("../dist/bundle/plugin/main.js", import.meta.url);
if (existsSync(fileURLToPath(compiled))) {
  await import(compiled.href);
} else {
  const sources = fileURLToPath(new URL("../provider/plugin/main.ts", import.meta.url));
  const child = spawn(process.execPath, ["--conditions=source", sources, ...process.argv.slice(2)], { stdio: "inherit" });
  // The engine stops plugins with a signal: pass it on.
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}
