#!/usr/bin/env node
// Runs the compiled CLI; inside a checkout without a build, the TypeScript sources under Node's type stripping.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const compiled = new URL("../dist/provider/cli/main.js", import.meta.url);
await import(existsSync(fileURLToPath(compiled)) ? compiled.href : new URL("../provider/cli/main.ts", import.meta.url).href);
