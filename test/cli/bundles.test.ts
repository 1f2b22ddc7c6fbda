// The commands users start run from their bundles (scripts/build.ts): of this package they load bin/ and files of
// dist/bundle/ only, never a compiled module of dist/ one by one (a second copy of a module would be a second
// registry, a second class for `instanceof`), and none of the dependencies bundled into them (zod, commander).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, expect, it } from "vitest";
import { launchPlugin, stopPlugin } from "../../provider/protocol/launch.ts";
import { audience, ROOT, userEnv } from "./helpers.ts";

const dir = mkdtempSync(join(tmpdir(), "audience-bundles-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** NODE_OPTIONS that make a process write every file it loads (ES modules and CommonJS alike) to `loads` at exit. */
function recordingLoads(loads: string): string {
  const hook = join(dir, "record-loads.mjs");
  writeFileSync(hook, [
    'import { registerHooks } from "node:module";',
    'import { writeFileSync } from "node:fs";',
    "const urls = [];",
    "registerHooks({ load(url, context, next) { urls.push(url); return next(url, context); } });",
    `process.on("exit", () => writeFileSync(${JSON.stringify(loads)}, JSON.stringify(urls)));`,
  ].join("\n"));
  return `--import=${pathToFileURL(hook).href}`;
}

/** Of the files a process loaded, those of this checkout, relative to it. */
function ownFiles(loads: string): string[] {
  const urls = JSON.parse(readFileSync(loads, "utf8")) as string[];
  return urls.filter((url) => url.startsWith("file:")).map((url) => relative(ROOT, fileURLToPath(url))).filter((path) => !path.startsWith(".."));
}

const outsideBundles = (files: string[]) => files.filter((path) => !/^(bin[\\/]|dist[\\/]bundle[\\/]|package\.json$)/.test(path) && !/^node_modules[\\/](?!zod[\\/]|commander[\\/])/.test(path));

it("audience drift runs from the CLI's bundle", { timeout: 60_000 }, async () => {
  const loads = join(dir, "drift.json");
  const r = await audience(["drift", "--state", join(dir, "none-*.json")], { env: { NODE_OPTIONS: recordingLoads(loads) } });
  expect(r.stderr).toMatch(/no file matches/);
  const files = ownFiles(loads);
  // The control: the entry and the chunk of the command it ran.
  expect(files).toEqual(expect.arrayContaining([join("dist", "bundle", "cli", "main.js")]));
  expect(files.some((path) => /^dist[\\/]bundle[\\/]cli[\\/]drift-/.test(path))).toBe(true);
  expect(outsideBundles(files)).toEqual([]);
});

it("pulumi-resource-audience runs from the plugin's bundle", { timeout: 60_000 }, async () => {
  const loads = join(dir, "plugin.json");
  const bin = join(ROOT, "bin", "pulumi-resource-audience.js");
  const { child } = await launchPlugin("packaged plugin", [bin, "127.0.0.1:1"], { cwd: ROOT, env: userEnv({ NODE_OPTIONS: recordingLoads(loads) }) });
  await stopPlugin(child);
  const files = ownFiles(loads);
  expect(files).toEqual(expect.arrayContaining([join("dist", "bundle", "plugin", "main.js")]));
  expect(outsideBundles(files)).toEqual([]);
});
