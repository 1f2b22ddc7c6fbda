// `npm run build`. tsc compiles every module into dist/ (what programs and other packages import); then what a
// process loads whole at its start is bundled from that output into dist/bundle/ with rolldown, so that the process
// loads a few files instead of 100 to 250 modules (ours and those of the packages in scripts/inlined.ts): the two
// commands a user starts, `audience` and the `pulumi-resource-audience` plugin, and `pulumi-audience/provider`,
// which Pulumi's dynamic-provider host loads on its first call of every run. Dependencies that load their own files
// as they run (undici by path, gRPC and Pulumi's generated stubs, fastify and its plugins) stay outside the bundles,
// as installed.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { rolldown } from "rolldown";
import { INLINED } from "./inlined.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** A chunk of one inlined package's modules (or its facade) is named after it: rolldown would name yaml's `dist`. */
function chunkFileNames({ moduleIds, facadeModuleId }: { moduleIds: string[]; facadeModuleId: string | null }): string {
  const ids = moduleIds.length > 0 ? moduleIds : [facadeModuleId ?? ""];
  return `${INLINED.find((name) => ids.every((id) => id.includes(`/node_modules/${name}/`))) ?? "[name]"}-[hash].js`;
}
/** Each bundle's compiled entry and file, by its directory under dist/bundle/: `cli` beside `plugin` keeps the
 * CLI's path to the plugin (`../plugin/main.js`) what it is among the compiled modules. */
const BUNDLES = {
  cli: { entry: "dist/provider/cli/main.js", file: "main.js" },
  plugin: { entry: "dist/provider/plugin/main.js", file: "main.js" },
  // package.json's `./provider` export.
  provider: { entry: "dist/provider/runtime/lifecycle/index.js", file: "index.js" },
};
/** The commands reach `pulumi-audience/provider` by name: they bundle its compiled modules, which their other
 * modules import by path, not its bundle (two copies of one module would be two registries in one process). */
const SELF = { "pulumi-audience/provider": join(ROOT, BUNDLES.provider.entry) };

execFileSync(process.execPath, [createRequire(import.meta.url).resolve("typescript/bin/tsc"), "-p", join(ROOT, "tsconfig.build.json")], { cwd: ROOT, stdio: "inherit" });
const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { dependencies: Record<string, string>; peerDependencies: Record<string, string> };
// A peer dependency (@pulumi/pulumi) is the program's own copy: never bundled.
const outside = Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies }).filter((name) => !INLINED.includes(name));
const external = (id: string) => id.startsWith("node:") || outside.some((name) => id === name || id.startsWith(`${name}/`));
for (const [name, { entry, file }] of Object.entries(BUNDLES)) {
  const bundle = await rolldown({ input: join(ROOT, entry), platform: "node", external, resolve: { alias: SELF }, logLevel: "warn" });
  const { output } = await bundle.generate({ format: "esm", entryFileNames: file, chunkFileNames });
  await bundle.close();
  // As tsc leaves an output whose text did not change, a file already as built is not written again: a process
  // running from the bundle meanwhile (a test, while another test packs the plugin) never finds a file missing. The
  // entry is written after the chunks it imports, and files no longer built go last.
  const dir = join(ROOT, "dist", "bundle", name);
  mkdirSync(dir, { recursive: true });
  const built = new Map(output.map((item) => [item.fileName, item.type === "chunk" ? item.code : item.source]));
  for (const [fileName, text] of [...built].sort(([a], [b]) => Number(a === file) - Number(b === file))) {
    const path = join(dir, fileName);
    if (!existsSync(path) || !readFileSync(path).equals(Buffer.from(text))) writeFileSync(path, text);
  }
  for (const stale of readdirSync(dir)) if (!built.has(stale)) rmSync(join(dir, stale), { recursive: true, force: true });
}
