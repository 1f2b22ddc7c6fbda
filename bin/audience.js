#!/usr/bin/env node
// Runs the CLI's bundle (scripts/build.ts); in a checkout without a build, runs the TypeScript sources under Node's
// type stripping with the `source` export condition, which a running process cannot turn on for itself. On too old
// a Node it stops first, with one line saying which Node to get.
import nodeVersion from "./node-version.cjs";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import nodeModule from "node:module";
import { fileURLToPath } from "node:url";

nodeVersion.stopIfTooOld();
// Compiled code of the modules a command loads is kept between runs (in the system's temporary directory, as
// TypeScript's own CLI does): each start then parses less.
nodeModule.enableCompileCache?.();

const compiled = new URL("../dist/bundle/cli/main.js", import.meta.url);
if (existsSync(fileURLToPath(compiled))) {
  await import(compiled.href);
} else {
  const sources = fileURLToPath(new URL("../provider/cli/main.ts", import.meta.url));
  const run = spawnSync(process.execPath, ["--conditions=source", sources, ...process.argv.slice(2)], { stdio: "inherit" });
  process.exit(run.status ?? 1);
}
