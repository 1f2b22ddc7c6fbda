// `npm run build`. tsc compiles every module into dist/ (what programs, Pulumi's hosts and other packages import);
// then each command a user starts, `audience` and the `pulumi-resource-audience` plugin, is bundled from that output
// into dist/bundle/ with rolldown, so that its process loads a few files instead of about 250 modules (ours, zod's,
// commander's). Dependencies that load their own files as they run (undici by path, gRPC and Pulumi's generated
// stubs, fastify and its plugins) stay outside the bundles, as installed.
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "rolldown";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** Dependencies bundled into the commands: plain modules, loaded whole. */
const INLINED = ["zod", "commander"];
/** The commands users start, each from its compiled entry, by its directory under dist/bundle/: `cli` beside `plugin`
 * keeps the CLI's path to the plugin (`../plugin/main.js`) what it is among the compiled modules. */
const COMMANDS = { cli: "dist/provider/cli/main.js", plugin: "dist/provider/plugin/main.js" };

execFileSync(process.execPath, [createRequire(import.meta.url).resolve("typescript/bin/tsc"), "-p", join(ROOT, "tsconfig.build.json")], { cwd: ROOT, stdio: "inherit" });
const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { dependencies: Record<string, string> };
const outside = Object.keys(manifest.dependencies).filter((name) => !INLINED.includes(name));
const external = (id: string) => id.startsWith("node:") || outside.some((name) => id === name || id.startsWith(`${name}/`));
const bundles = join(ROOT, "dist", "bundle");
rmSync(bundles, { recursive: true, force: true });
for (const [name, entry] of Object.entries(COMMANDS)) {
  await build({
    input: join(ROOT, entry),
    platform: "node",
    external,
    logLevel: "warn",
    output: { dir: join(bundles, name), format: "esm", entryFileNames: "main.js", chunkFileNames: "[name]-[hash].js" },
  });
}
