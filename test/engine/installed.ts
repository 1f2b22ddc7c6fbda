// Programs that use this package as a user's do: installed from `npm pack` (compiled, no `source` condition) into
// a program folder at another path, for runs in the engine's CLI-faithful mode and for Pulumi's own hosts. The
// tarball is made once per version of the sources and unpacked into a cache shared by every test file; each program
// links to it.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll } from "vitest";
import { buildIfStale } from "../global-setup.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const CACHE = join(ROOT, ".audience", "packed");
const SOURCES = ["package.json", "bin", "sdk", "provider", "policy", "emulator", "examples/adaptive-discounting"];

/** A digest of what `npm pack` would put in the tarball. */
function sourcesDigest(): string {
  const hash = createHash("sha256");
  for (const top of SOURCES) {
    const path = join(ROOT, top);
    const files = top.includes(".") ? [path] : readdirSync(path, { recursive: true, encoding: "utf8" }).sort().map((f) => join(path, f));
    for (const file of files) {
      try {
        hash.update(file).update(readFileSync(file));
      } catch {
        // a directory
      }
    }
  }
  return hash.digest("hex").slice(0, 16);
}

/**
 * The `node_modules` of an installation of this package: the packed package, and every dependency linked from this
 * checkout's own installation (the tarball pins the same versions), laid out as npm hoists them.
 */
export async function installedModules(): Promise<string> {
  const dir = join(CACHE, sourcesDigest());
  const modules = join(dir, "node_modules");
  const lock = `${dir}.lock`;
  mkdirSync(CACHE, { recursive: true });
  for (;;) {
    if (existsSync(join(modules, "pulumi-audience", "package.json"))) return modules;
    try {
      mkdirSync(lock);
      break;
    } catch {
      await sleep(500); // another test file is packing
    }
  }
  try {
    const work = mkdtempSync(join(CACHE, "work-"));
    // What `npm pack` makes, its `prepare` (npm run build) being the build this test run made (global-setup.ts): the
    // one build of a run serves the tests that run dist/ and every installed program.
    buildIfStale(ROOT);
    const [packed] = JSON.parse(execFileSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", work], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] })) as { filename: string }[];
    execFileSync("tar", ["-xzf", join(work, packed!.filename), "-C", work]);
    const staged = join(work, "node_modules");
    mkdirSync(staged);
    renameSync(join(work, "package"), join(staged, "pulumi-audience"));
    const own = join(ROOT, "node_modules");
    for (const entry of readdirSync(own)) {
      if (entry.startsWith(".") || entry === "pulumi-audience") continue;
      symlinkSync(realpathSync(join(own, entry)), join(staged, entry));
    }
    rmSync(dir, { recursive: true, force: true });
    renameSync(work, dir);
    return modules;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

const made: string[] = [];

/** Removes the program folders this process made (the shared installation stays, for the next test file). */
export function removeInstalledPrograms(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/**
 * A copy of the program in `source` (Pulumi.yaml and its files) in a new folder outside this checkout, with this
 * package installed: what `npm install pulumi-audience` gives a user. The `source` condition a program inside the
 * checkout asks for (`nodeargs`) is dropped, as a user's program has none.
 */
export async function installedProgram(source: string, name: string): Promise<string> {
  const modules = await installedModules();
  const dir = mkdtempSync(join(tmpdir(), `installed-${name}-`));
  made.push(dir);
  cpSync(source, dir, { recursive: true, filter: (path) => !path.includes("node_modules") && !path.includes(".audience") });
  const yaml = join(dir, "Pulumi.yaml");
  writeFileSync(yaml, readFileSync(yaml, "utf8").replace(/^\s*nodeargs:.*--conditions=source.*\n/m, ""));
  const { version } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name, private: true, type: "module", dependencies: { "pulumi-audience": version } }, null, 2));
  symlinkSync(modules, join(dir, "node_modules"));
  return dir;
}

/** Whether this test file runs in the engine's CLI-faithful mode (its `*.faithful.test.ts` twin sets it). */
export const faithfulMode = () => process.env["AUDIENCE_FAITHFUL"] === "1";

const installed = new Map<string, Promise<string>>();

/** The program folder a test runs: `dir` itself, or in CLI-faithful mode a copy with this package installed. */
export function programDir(dir: string): Promise<string> {
  if (!faithfulMode()) return Promise.resolve(dir);
  let program = installed.get(dir);
  if (!program) installed.set(dir, (program = installedProgram(dir, basename(dir))));
  return program;
}

/** Runs a test file's scenarios in CLI-faithful mode: the environment a user of the Pulumi CLI has, then the file. */
export async function inFaithfulMode(load: () => Promise<unknown>): Promise<void> {
  afterAll(removeInstalledPrograms);
  process.env["AUDIENCE_FAITHFUL"] = "1";
  // The user's NODE_OPTIONS, without the `source` condition this checkout's tests run with.
  process.env["NODE_OPTIONS"] = "";
  await load();
}
