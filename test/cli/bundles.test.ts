// What a process loads whole at its start runs from its bundle (scripts/build.ts): the commands users start, and
// `pulumi-audience/provider` as Pulumi's dynamic-provider host loads it. Of this package they load bin/ and files
// of dist/bundle/ only, never a compiled module of dist/ one by one (a second copy of a module would be a second
// registry, a second class for `instanceof`), and none of the dependencies bundled into them (scripts/inlined.ts).
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, expect, it } from "vitest";
import { launchPlugin, stopPlugin } from "../../provider/protocol/launch.ts";
import { INLINED } from "../../scripts/inlined.ts";
import { audience, ROOT, userEnv } from "./helpers.ts";

const dir = mkdtempSync(join(tmpdir(), "audience-bundles-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** NODE_OPTIONS that make a process add every file it loads (ES modules and CommonJS alike) to `loads` as it loads
 * it: a process stopped by a signal has written them all. */
function recordingLoads(loads: string): string {
  const hook = join(dir, `record-${basename(loads)}.mjs`);
  writeFileSync(hook, [
    'import { registerHooks } from "node:module";',
    'import { appendFileSync } from "node:fs";',
    `registerHooks({ load(url, context, next) { appendFileSync(${JSON.stringify(loads)}, url + "\\n"); return next(url, context); } });`,
  ].join("\n"));
  return `--import=${pathToFileURL(hook).href}`;
}

/** Of the files a process loaded, those of this checkout, relative to it. */
function ownFiles(loads: string): string[] {
  const urls = readFileSync(loads, "utf8").split("\n").filter(Boolean);
  return urls.filter((url) => url.startsWith("file:")).map((url) => relative(ROOT, fileURLToPath(url))).filter((path) => !path.startsWith(".."));
}

const notInlined = new RegExp(`^node_modules[\\\\/](?!${INLINED.map((name) => `${name}[\\\\/]`).join("|")})`);
const outsideBundles = (files: string[]) => files.filter((path) => !/^(bin[\\/]|dist[\\/]bundle[\\/]|package\.json$)/.test(path) && !notInlined.test(path));

it("audience drift runs from the CLI's bundle", { timeout: 60_000 }, async () => {
  const loads = join(dir, "drift-loads.txt");
  const r = await audience(["drift", "--state", join(dir, "none-*.json")], { env: { NODE_OPTIONS: recordingLoads(loads) } });
  expect(r.stderr).toMatch(/no file matches/);
  const files = ownFiles(loads);
  // The control: the entry and the chunk of the command it ran.
  expect(files).toEqual(expect.arrayContaining([join("dist", "bundle", "cli", "main.js")]));
  expect(files.some((path) => /^dist[\\/]bundle[\\/]cli[\\/]drift-/.test(path))).toBe(true);
  expect(outsideBundles(files)).toEqual([]);
});

it("a command reading Pulumi.yaml and the stack's config parses them from the CLI's bundle", { timeout: 60_000 }, async () => {
  const program = join(dir, "program");
  mkdirSync(program);
  writeFileSync(join(program, "Pulumi.yaml"), "name: bundled\nruntime: nodejs\n");
  writeFileSync(join(program, "Pulumi.dev.yaml"), "config:\n  audience:baseUrl: https://example.com/v1\n");
  const loads = join(dir, "config-loads.txt");
  const r = await audience(["config", "get", "audience:baseUrl", "--cwd", program, "--stack", "dev"], { env: { NODE_OPTIONS: recordingLoads(loads) } });
  expect(r.stdout.trim()).toBe("https://example.com/v1");
  const files = ownFiles(loads);
  expect(files.some((path) => /^dist[\\/]bundle[\\/]cli[\\/]yaml-/.test(path))).toBe(true);
  expect(outsideBundles(files)).toEqual([]);
});

it("pulumi-resource-audience runs from the plugin's bundle", { timeout: 60_000 }, async () => {
  const loads = join(dir, "plugin-loads.txt");
  const bin = join(ROOT, "bin", "pulumi-resource-audience.js");
  const { child } = await launchPlugin("packaged plugin", [bin, "127.0.0.1:1"], { cwd: ROOT, env: userEnv({ NODE_OPTIONS: recordingLoads(loads) }) });
  await stopPlugin(child);
  const files = ownFiles(loads);
  expect(files).toEqual(expect.arrayContaining([join("dist", "bundle", "plugin", "main.js")]));
  expect(outsideBundles(files)).toEqual([]);
});

it("pulumi-audience/provider loads from its bundle, as the dynamic-provider host requires it", () => {
  const loads = join(dir, "provider-loads.txt");
  const loaded = execFileSync(process.execPath, ["-e", 'console.log(typeof require("pulumi-audience/provider").provider.create)'], { cwd: ROOT, env: userEnv({ NODE_OPTIONS: recordingLoads(loads) }), encoding: "utf8" });
  expect(loaded).toBe("function\n");
  const files = ownFiles(loads);
  expect(files).toEqual(expect.arrayContaining([join("dist", "bundle", "provider", "index.js")]));
  expect(outsideBundles(files)).toEqual([]);
});

it("a build of unchanged sources leaves every bundle file as it was: a process running from them meanwhile finds each one", { timeout: 120_000 }, () => {
  const bundles = join(ROOT, "dist", "bundle");
  const files = () => readdirSync(bundles, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".js")).sort().map((f) => [f, statSync(join(bundles, f)).mtimeMs]);
  const before = files();
  execFileSync(process.execPath, [join(ROOT, "scripts", "build.ts")], { cwd: ROOT, env: userEnv(), stdio: "ignore" });
  expect(before.length).toBeGreaterThan(3);
  expect(files()).toEqual(before);
});
