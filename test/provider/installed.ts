// A Pulumi program that uses this package as a user has it: `npm pack`ed (the one installation every test file
// shares, test/engine/installed.ts), copied into the program's own node_modules at another path (its dependencies
// linked from this checkout's), and Pulumi's dynamic-provider host started as the Pulumi CLI starts it: the launcher
// script `pulumi-resource-pulumi-nodejs` run directly, with the engine's address as its one argument, the project
// directory as cwd and the CLI's environment (PULUMI_NODEJS_PROJECT, PULUMI_PROJECT, PULUMI_CONFIG); the CLI then
// configures it with the namespaced stack config.
import { execFile, spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { DynamicProviderHost, processConnection, type ProviderConnection } from "../../provider/engine/provider-host.ts";
import { installedModules } from "../engine/installed.ts";
import { REPO_ROOT } from "./harness.ts";

const run = promisify(execFile);
const DEPENDENCIES = join(REPO_ROOT, "node_modules");

/** The directory of the Node this package pins (node_modules/.bin/node), to put first on a PATH. */
export const PINNED_NODE_DIR = dirname(realpathSync(join(DEPENDENCIES, ".bin", "node")));

/** An environment with only what a shell gives a user, plus `extra`. */
function plainEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { HOME: process.env["HOME"] ?? tmpdir(), PATH: `${PINNED_NODE_DIR}:/usr/bin:/bin`, ...extra };
}

const temporaries: string[] = [];

function temporary(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temporaries.push(dir);
  return dir;
}

/** Removes what this file made: unpacked packages and programs (the shared installation stays). */
export function removeTemporaries(): void {
  for (const dir of temporaries.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export interface Program {
  /** The project directory (cwd of the host). */
  dir: string;
  project: string;
  /** Puts the packed package into the program's node_modules (a copy, as npm installs it). */
  install(): void;
}

/** Unpacks a tarball of `npm pack` into a new temporary directory; answers the package's directory there. */
export async function unpack(tarball: string): Promise<string> {
  const into = temporary("audience-unpacked-");
  await run("tar", ["xzf", tarball, "-C", into]);
  return join(into, "package");
}

/** `dir`/node_modules as `npm install` would make it, but for this package: links to this checkout's dependencies. */
export function linkDependencies(dir: string): string {
  const modules = join(dir, "node_modules");
  mkdirSync(modules, { recursive: true });
  for (const entry of readdirSync(DEPENDENCIES)) {
    if (entry === ".bin" || entry === "pulumi-audience") continue;
    symlinkSync(join(DEPENDENCIES, entry), join(modules, entry));
  }
  return modules;
}

/** A program in a temporary directory: Pulumi.yaml, package.json, node_modules with this checkout's dependencies. */
export async function program(options: { installed: boolean }): Promise<Program> {
  const dir = temporary("audience-program-");
  const project = "installed-program";
  writeFileSync(join(dir, "Pulumi.yaml"), `name: ${project}\nruntime: nodejs\nmain: index.ts\n`);
  writeFileSync(join(dir, "package.json"), `${JSON.stringify({ name: project, private: true, type: "module", dependencies: { "pulumi-audience": "*" } }, null, 2)}\n`);
  const modules = linkDependencies(dir);
  const source = join(await installedModules(), "pulumi-audience");
  const target = join(modules, "pulumi-audience");
  const installed: Program = {
    dir,
    project,
    install: () => {
      const copy = `${target}.tmp`;
      cpSync(source, copy, { recursive: true });
      renameSync(copy, target);
    },
  };
  if (options.installed) installed.install();
  return installed;
}

export interface CliHostOptions {
  program: Program;
  /** PATH: which `node` the launcher finds. */
  path: string;
  /** NODE_OPTIONS of the user's environment, if any. */
  nodeOptions?: string;
  /** The stack config the CLI sends to Configure (full keys, such as `audience:apiKey`). */
  config: Record<string, unknown>;
}

/** The dynamic-provider host as the CLI runs it; `output()` is what it printed. */
export class CliHost extends DynamicProviderHost {
  readonly #pid: number;
  readonly #output: string[];

  private constructor(pid: number, output: string[], connection: ProviderConnection) {
    super("dynamic-provider host", connection, undefined);
    this.#pid = pid;
    this.#output = output;
  }

  static async launch(options: CliHostOptions): Promise<CliHost> {
    const { program: { dir, project }, config } = options;
    const launcher = join(dir, "node_modules", "@pulumi", "pulumi", "pulumi-resource-pulumi-nodejs");
    const env = plainEnv({
      PATH: options.path,
      PULUMI_NODEJS_PROJECT: project,
      PULUMI_PROJECT: project,
      PULUMI_CONFIG: JSON.stringify(Object.fromEntries(Object.entries(config).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]))),
      ...(options.nodeOptions ? { NODE_OPTIONS: options.nodeOptions } : {}),
    });
    // Its own process group: the launcher runs node as its child, and closing stops both, as the CLI's kill does.
    const child = spawn(launcher, ["127.0.0.1:1"], { cwd: dir, env, stdio: ["pipe", "pipe", "pipe"], detached: true });
    const output: string[] = [];
    const stderr: string[] = [];
    createInterface({ input: child.stderr }).on("line", (line) => { output.push(line); stderr.push(line); });
    const lines = createInterface({ input: child.stdout });
    const port = await new Promise<string>((resolve, reject) => {
      let first = true;
      lines.on("line", (line) => {
        if (first) resolve(line.trim());
        else output.push(line);
        first = false;
      });
      child.once("error", reject);
      child.once("exit", (code) => reject(new Error(`the host exited (${code}) before listening:\n${stderr.join("\n")}`)));
    });
    const host = new CliHost(child.pid!, output, processConnection({ child, port, stderr }));
    await host.configure(config);
    return host;
  }

  output(): string {
    return this.#output.join("\n");
  }

  override async close(): Promise<void> {
    try {
      process.kill(-this.#pid, "SIGTERM");
    } catch {
      // already gone
    }
    await super.close();
  }
}
