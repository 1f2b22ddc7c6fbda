// The plugin as a release publishes it (`npm run plugin:pack`) and the Pulumi CLI installs and runs it, step by step
// as pulumi/pulumi does: `pulumi plugin install resource audience <v> --file <folder>` copies the folder
// (pkg/pluginstorage/content.go: folders made 0700, each file copied through, links read as files) or unpacks the
// tarball, then runs `npm install --loglevel=error` there (the Node.js runtime's InstallDependencies; not run here, as
// there is no registry to reach: its result is put in place from this checkout); the engine starts
// it through the Node.js runtime's RunPlugin: `node <@pulumi/pulumi/cmd/run-plugin> <folder> <engine address>`, from
// the project's folder, and reads the port from its first line. package.json's `pulumi` field and PulumiPlugin.yaml
// are read as the CLI reads them.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative, resolve } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { buildOutputs, packPlugin, type Packed } from "../../scripts/plugin-pack.ts";
import { faults, LOST_ANSWER } from "./lost-answer.ts";
import { startEmulator, type RunningEmulator } from "pulumi-audience/emulator";
import { startFakeEngine, type FakeEngine } from "./fake-engine.ts";
import { REPO_ROOT, urnOf } from "./harness.ts";
import { rawPlugin } from "./raw-client.ts";

const SERVER = "https://plugins.example.test/audience";
const VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string }).version;
const GO_ARCH: Record<string, string> = { x64: "amd64", arm64: "arm64" };
const PLATFORM = `${process.platform === "win32" ? "windows" : process.platform}-${GO_ARCH[process.arch] ?? process.arch}`;
/** The pinned Node (22+) first, then the machine's tools; nothing else of this process's environment. */
const PATH = `${join(REPO_ROOT, "node_modules", ".bin")}:/usr/local/bin:/usr/bin:/bin`;

let work: string;
let packed: Packed;
let home: string;
let installed: string;

/** Every path under `root`, relative, with what it is. */
function tree(root: string): Map<string, "dir" | "file" | "link"> {
  const found = new Map<string, "dir" | "file" | "link">();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      const kind = entry.isSymbolicLink() ? "link" : entry.isDirectory() ? "dir" : "file";
      found.set(relative(root, path), kind);
      if (kind === "dir") walk(path);
    }
  };
  walk(root);
  return found;
}

/**
 * `pulumi plugin install --file <folder>` (pluginstorage.dirPlugin.writeToDir): walks the folder without following
 * links, makes each folder 0700, and copies each other entry by opening it, so a link to a file becomes that file
 * and a link to a folder fails the install.
 */
function installAsPulumi(source: string, target: string): void {
  mkdirSync(target, { recursive: true, mode: 0o700 });
  for (const [path, kind] of tree(source)) {
    const from = join(source, path);
    const to = join(target, path);
    if (kind === "dir") mkdirSync(to, { mode: 0o700 });
    else writeFileSync(to, readFileSync(from), { mode: lstatSync(from).mode & 0o777 });
  }
}

/** Runs a command with only PATH and HOME (and `env`), as a clean runner would; its exit code and output. */
function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): { code: number; output: string } {
  try {
    const output = execFileSync(command, args, { cwd, env: { PATH, HOME: home, ...env }, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    return { code: 0, output };
  } catch (error) {
    const e = error as { status?: number; stdout?: string; stderr?: string };
    return { code: e.status ?? 1, output: `${e.stdout ?? ""}${e.stderr ?? ""}` };
  }
}

/** Starts the installed plugin as Pulumi's Node.js runtime does and reads its first line. */
async function runPlugin(folder: string, engineAddress: string, path = PATH): Promise<{ child: ChildProcess; firstLine: string; stderr: string[] }> {
  const located = run("node", ["-e", "console.log(require.resolve('@pulumi/pulumi/cmd/run-plugin'))"], folder, { PATH: path });
  expect(located.code, located.output).toBe(0);
  const project = mkdtempSync(join(work, "project-"));
  const child = spawn("node", [located.output.trim(), folder, engineAddress], { cwd: project, env: { PATH: path, HOME: home }, stdio: ["pipe", "pipe", "pipe"] });
  const stderr: string[] = [];
  createInterface({ input: child.stderr! }).on("line", (line) => stderr.push(line));
  const firstLine = await new Promise<string>((resolve) => {
    createInterface({ input: child.stdout! }).once("line", resolve);
    child.once("exit", () => resolve(""));
  });
  return { child, firstLine, stderr };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill();
  await exited;
}

/**
 * What the CLI's `npm install --loglevel=error` leaves in the installed folder: the packages of its lockfile. No
 * registry is reached here, so they come from this checkout's node_modules, whose versions the lockfile names.
 */
function installDependencies(folder: string): void {
  const lock = JSON.parse(readFileSync(join(folder, "package-lock.json"), "utf8")) as { packages: Record<string, unknown> };
  for (const path of Object.keys(lock.packages).filter((p) => /^node_modules\/(@[^/]+\/)?[^/]+$/.test(p))) {
    const from = join(REPO_ROOT, path);
    // A registry's package holds no links; npm makes `.bin` itself.
    cpSync(from, join(folder, path), { recursive: true, dereference: true, filter: (source) => source === from || (basename(source) !== ".bin" && !lstatSync(source).isSymbolicLink()) });
  }
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "audience-plugin-install-"));
  home = join(work, "home");
  mkdirSync(home);
  // The release as `npm run plugin:pack -- --server <url>` makes it: compiled, then copied.
  packed = packPlugin({ out: join(work, "release"), server: SERVER, platforms: [PLATFORM] });
  installed = join(home, ".pulumi", "plugins", `resource-audience-v${VERSION}`);
  installAsPulumi(packed.folder, installed);
}, 600_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
}, 300_000);

describe("the release folder and tarball", () => {
  it("are named as Pulumi's plugin downloads expect, with their checksums", () => {
    expect(packed.folder).toBe(join(work, "release", `pulumi-resource-audience-v${VERSION}`));
    expect(packed.tarballs).toEqual([join(work, "release", `pulumi-resource-audience-v${VERSION}-${PLATFORM}.tar.gz`)]);
    const sum = createHash("sha256").update(readFileSync(packed.tarballs[0]!)).digest("hex");
    expect(packed.checksums).toBe(`${sum}  pulumi-resource-audience-v${VERSION}-${PLATFORM}.tar.gz\n`);
  });

  it("hold no link, so the CLI's copy of the folder succeeds, and the tarball unpacks to the same files", () => {
    const files = tree(packed.folder);
    expect([...files].filter(([, kind]) => kind === "link").map(([path]) => path)).toEqual([]);
    const unpacked = join(work, "unpacked");
    mkdirSync(unpacked);
    execFileSync("tar", ["-xzf", packed.tarballs[0]!, "-C", unpacked]);
    expect([...tree(unpacked)].sort()).toEqual([...files].sort());
  });

  it("hold the build's code of the sources there are now and nothing else of dist/ (no incremental record, no removed source's code)", () => {
    const files = [...tree(join(packed.folder, "dist"))].filter(([, kind]) => kind === "file").map(([path]) => path);
    expect(files.sort()).toEqual(buildOutputs().sort());
  });

  it("have source maps that name the package's own paths, not the folder of the machine that built them", () => {
    const outside: string[] = [];
    for (const map of buildOutputs().filter((path) => path.endsWith(".js.map"))) {
      const file = join(packed.folder, "dist", map);
      for (const source of (JSON.parse(readFileSync(file, "utf8")) as { sources: string[] }).sources) {
        if (!resolve(dirname(file), source).startsWith(`${packed.folder}/`)) outside.push(`${map}: ${source}`);
      }
    }
    expect(outside).toEqual([]);
  });

  it("installed as the CLI copies it, has every folder 0700 and every file of the folder", () => {
    const copied = tree(installed);
    expect(copied).toEqual(tree(packed.folder));
    const dirs = [...copied].filter(([, kind]) => kind === "dir").map(([path]) => path);
    expect(dirs).toEqual(expect.arrayContaining(["bin", "dist", join("dist", "provider", "plugin")]));
    expect(dirs.filter((path) => (statSync(join(installed, path)).mode & 0o777) !== 0o700)).toEqual([]);
  });
});

describe("the installed plugin started as Pulumi's Node.js runtime starts it, with only PATH and HOME", { timeout: 120_000 }, () => {
  let engine: FakeEngine;
  let emulator: RunningEmulator;
  // Copying every dependency into the installed package takes minutes on a loaded machine, not the default minute.
  beforeAll(async () => {
    installDependencies(installed);
    engine = await startFakeEngine();
    emulator = await startEmulator({ port: 0 });
  }, 600_000);
  afterAll(async () => {
    await emulator?.close();
    await engine?.close();
  });

  it("prints its port first, handshakes, answers its version and the schema with the download URL given at pack time, and logs to the engine it was given", async () => {
    const plugin = await runPlugin(installed, engine.address);
    try {
      expect(plugin.firstLine, plugin.stderr.join("\n")).toMatch(/^\d+$/);
      const client = rawPlugin(plugin.firstLine);
      try {
        await client.handshake(engine.address, installed);
        expect(await client.version()).toBe(VERSION);
        expect(await client.schema()).toMatchObject({ name: "audience", version: VERSION, pluginDownloadURL: SERVER });
        await client.configure({ "audience:config:apiKey": emulator.apiKey, "audience:config:baseUrl": `${emulator.url}/v1` });
        await faults(emulator.url, [LOST_ANSWER]);
        const urn = urnOf("audience:index:Cohort", "installed");
        await client.create(urn, { name: "From the installed plugin", streamName: "transactions", minCount: 100 });
        const warning = await engine.next((m) => m.message.includes(`Cohort "From the installed plugin": the create's answer was lost`));
        expect(warning).toMatchObject({ severity: "warning", urn });
      } finally {
        client.close();
      }
    } finally {
      await stop(plugin.child);
    }
    expect(plugin.stderr.join("\n")).not.toContain("answer was lost");
  });

  it("says which Node it needs, without a port, when the `node` on PATH is older", async () => {
    const old = execFileSync("/usr/bin/node", ["--version"], { encoding: "utf8" }).trim();
    if (Number(old.replace(/^v/, "").split(".")[0]) >= 22) return;
    const plugin = await runPlugin(installed, engine.address, `${dirname("/usr/bin/node")}:/bin`);
    await new Promise((resolve) => (plugin.child.exitCode === null ? plugin.child.once("exit", resolve) : resolve(undefined)));
    expect(plugin.firstLine).toBe("");
    expect(plugin.child.exitCode).not.toBe(0);
    expect(plugin.stderr.join("\n")).toContain(`pulumi-audience needs Node >= 22.18 (this is Node ${old.replace(/^v/, "")})`);
  });
});

describe("the package as the CLI reads it", () => {
  const manifests = () => [join(REPO_ROOT, "package.json"), join(installed, "package.json")].map((path) => ({ path, json: JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown> }));

  it("declares the plugin in package.json's `pulumi` field, as the Node.js runtime's GetRequiredPackages reads it", () => {
    for (const { path, json } of manifests()) {
      const pulumi = json.pulumi as { resource?: unknown; name?: unknown; version?: unknown; server?: unknown };
      // getPackageInfo: `resource: true`; a package outside @pulumi/ must name its plugin; the version defaults
      // to the package's, with a `v`.
      expect(pulumi.resource, path).toBe(true);
      expect(pulumi.name, path).toBe("audience");
      expect(`v${String(pulumi.version ?? json.version)}`, path).toBe(`v${VERSION}`);
      expect(typeof pulumi.server, path).toBe("string");
      // run-plugin requires the folder: its `main`.
      expect(statSync(join(dirname(path), String(json.main))).isFile(), path).toBe(true);
    }
    expect((manifests()[1]!.json.pulumi as { server: string }).server).toBe(SERVER);
  });

  it("ships a PulumiPlugin.yaml the CLI loads: a Node.js runtime with options its runtime knows", () => {
    for (const folder of [REPO_ROOT, installed]) {
      const plugin = parse(readFileSync(join(folder, "PulumiPlugin.yaml"), "utf8")) as Record<string, unknown>;
      // workspace.PluginProject: runtime (a name, or a name and options), packages, requiredPulumiVersion, template.
      expect(Object.keys(plugin).filter((key) => !["runtime", "packages", "requiredPulumiVersion", "template"].includes(key))).toEqual([]);
      const runtime = plugin.runtime as string | { name: string; options?: Record<string, unknown> };
      expect(typeof runtime === "string" ? runtime : runtime.name).toBe("nodejs");
      const options = typeof runtime === "string" ? {} : runtime.options ?? {};
      expect(Object.keys(options).filter((key) => !["typescript", "tsconfig", "nodeargs", "production", "packagemanager"].includes(key))).toEqual([]);
    }
  });

  it("leaves development tools and scripts out of the installed package.json, and its lockfile matches it", () => {
    const { json } = manifests()[1]!;
    expect(json).not.toHaveProperty("devDependencies");
    expect(json).not.toHaveProperty("scripts");
    const lock = JSON.parse(readFileSync(join(installed, "package-lock.json"), "utf8")) as { packages: Record<string, { dev?: boolean; devDependencies?: unknown; dependencies?: unknown }> };
    expect(lock.packages[""]?.devDependencies).toBeUndefined();
    expect(lock.packages[""]?.dependencies).toEqual(json.dependencies);
    expect(Object.entries(lock.packages).filter(([, entry]) => entry.dev).map(([path]) => path)).toEqual([]);
  });
});
