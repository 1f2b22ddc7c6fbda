// Runs a program through @pulumi/pulumi's Node language runtime (cmd/run), as the Pulumi CLI's language host does.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { totalmem } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { ProjectError, type Project } from "./project.ts";
import { resolvePulumiModule } from "../protocol/proto.ts";
import { preloadFile, tetherArgs } from "./tether.ts";

/** NODE_OPTIONS for child processes: ours, plus the `source` export condition when this process runs with it. */
export function childNodeOptions(env: NodeJS.ProcessEnv = process.env): string {
  const options = env["NODE_OPTIONS"] ?? "";
  const ours = [...process.execArgv, ...(process.env["NODE_OPTIONS"] ?? "").split(/\s+/)];
  const source = ours.some((a) => a === "--conditions=source" || a === "-C=source");
  return source && !/(^|\s)--conditions=source(\s|$)/.test(options) ? `${options} --conditions=source`.trim() : options;
}

/**
 * The heap a program may grow to: three quarters of the machine's memory. The Pulumi runtime holds about 0.1 MB per
 * resource, so a stack of 50,000 needs more than V8's default limit (about 4 GB on a 64-bit machine).
 */
const PROGRAM_HEAP_MB = Math.floor((totalmem() * 0.75) / 2 ** 20);

/** The Node argument raising a program's heap limit, unless its NODE_OPTIONS or the project's nodeargs set one. */
export function programHeapArgs(nodeOptions: string, nodeArgs: readonly string[], heapMb = PROGRAM_HEAP_MB): string[] {
  const set = [...nodeOptions.split(/\s+/), ...nodeArgs].some((a) => /^--max[-_]old[-_]space[-_]size(=|$)/.test(a));
  return set ? [] : [`--max-old-space-size=${heapMb}`];
}

function nearestPackageDir(from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json"))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * This package's program preload (`pulumi-audience/require-node`), which the Pulumi CLI's runs get from a program's
 * Pulumi.yaml: it stops a too old Node, keeps a failing program from hanging on its stack trace, and keeps the runtime
 * from capturing a stack with every promise.
 */
const PROGRAM_PRELOAD = createRequire(import.meta.url).resolve("pulumi-audience/require-node");

/**
 * Node arguments preloading `code`, which patches the runtime's `module` (resolved from its run entry; `code` gets
 * its path as a JS string); none when the runtime has no such module.
 */
function runtimePatch(runEntry: string, module: string, code: (path: string) => string[]): string[] {
  let path: string;
  try {
    path = createRequire(runEntry).resolve(module);
  } catch {
    return [];
  }
  return ["--require", preloadFile(`${code(JSON.stringify(path)).join("\n")}\n`)];
}

/**
 * Node arguments that keep the runtime's debug messages in the program: it sends several for each resource to the
 * engine's Log service, one at a time, each a round trip it waits on before it may exit, and this engine keeps none
 * of them (events.ts). Ephemeral ones still go. Not as the Pulumi CLI runs a program, which shows them with --debug.
 */
const quietDebugArgs = (runEntry: string) => runtimePatch(runEntry, "../../log/index.js", (log) => [
  `const log = require(${log});`,
  "const send = log.debug;",
  "log.debug = function (message, resource, streamId, ephemeral) {",
  "  return ephemeral ? send.call(this, message, resource, streamId, ephemeral) : Promise.resolve();",
  "};",
]);

/** The first module the project's nodeargs preload (`--require X`, `-r X`) that does not resolve from the program's
 * directory: its dependencies are not installed there. */
function unresolvedPreload(project: Pick<Project, "dir" | "nodeArgs">): string | undefined {
  const fromProgram = createRequire(join(project.dir, "package.json"));
  const { nodeArgs } = project;
  for (const [i, arg] of nodeArgs.entries()) {
    const module = arg.startsWith("--require=") ? arg.slice("--require=".length) : arg === "--require" || arg === "-r" ? nodeArgs[i + 1] : undefined;
    if (module === undefined) continue;
    try {
      fromProgram.resolve(module);
    } catch {
      return module;
    }
  }
  return undefined;
}

export interface ProgramRun {
  project: Project;
  stack: string;
  monitorAddress: string;
  dryRun: boolean;
  parallel: number;
  env: NodeJS.ProcessEnv;
  onOutput: (line: string, stream: "stdout" | "stderr") => void;
  /** Stops the program (e.g. once a step failed and it does not exit by itself). */
  signal?: AbortSignal;
  /** As the Pulumi CLI runs it: NODE_OPTIONS as `env` has them, without this engine's `source` condition. */
  asCli?: boolean;
}

const running = new Set<ChildProcess>();
// A program must not outlive the engine that serves it.
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

/**
 * What runs a program against the engine's monitor: @pulumi/pulumi's Node runtime in a child process (`nodeRuntime`),
 * or, in the engine's tests, a function in the engine's process that calls the same monitor.
 */
export interface LanguageRuntime {
  /** Runs the program to completion; resolves with its exit code. */
  run(run: ProgramRun): Promise<number>;
}

/** The program in @pulumi/pulumi's Node language runtime, in a process of its own, as the Pulumi CLI runs it. */
export const nodeRuntime: LanguageRuntime = { run: runLanguageRuntime };

/** Runs the program to completion; resolves with its exit code. */
export async function runLanguageRuntime(run: ProgramRun): Promise<number> {
  const { project } = run;
  if (project.main === ".") {
    // The runtime then takes the entry point from the nearest package.json, which may belong to another package.
    const pkg = nearestPackageDir(project.dir);
    if (pkg !== project.dir) {
      throw new ProjectError(
        `${join(project.dir, "Pulumi.yaml")}: set "main" (e.g. main: index.ts): the program has no package.json of its own, so the Node runtime would run the entry point of ${pkg ? join(pkg, "package.json") : "no package"} instead`,
      );
    }
  }
  // Node would stop at the preload with its own stack trace, before the program could say anything.
  const missing = unresolvedPreload(project);
  if (missing !== undefined) {
    throw new ProjectError(`${join(project.dir, "Pulumi.yaml")}: nodeargs preload ${missing}, which is not installed for the program: run \`npm install\` in ${project.dir}`);
  }
  const entry = resolvePulumiModule(project.dir, "cmd/run/index.js");
  const env: NodeJS.ProcessEnv = { ...run.env, NODE_OPTIONS: run.asCli ? (run.env["NODE_OPTIONS"] ?? "") : childNodeOptions(run.env) };
  const args = [
    ...tetherArgs(),
    // As the Pulumi CLI runs it, the program gets the heap its NODE_OPTIONS give it.
    ...(run.asCli ? [] : programHeapArgs(env["NODE_OPTIONS"] ?? "", project.nodeArgs)),
    "--require", PROGRAM_PRELOAD,
    ...(run.asCli ? [] : quietDebugArgs(entry)),
    ...project.nodeArgs,
    entry,
    `--monitor=${run.monitorAddress}`,
    `--engine=${run.monitorAddress}`,
    `--organization=organization`,
    `--project=${project.name}`,
    `--stack=${run.stack}`,
    `--root-directory=${project.dir}`,
    `--pwd=${project.dir}`,
    `--parallel=${run.parallel}`,
    ...(run.dryRun ? ["--dry-run"] : []),
    project.main === "." ? "." : resolve(project.dir, project.main),
  ];
  if (project.typescript) env["PULUMI_NODEJS_TYPESCRIPT"] = "true";
  else delete env["PULUMI_NODEJS_TYPESCRIPT"];
  // Its own process group: a terminal's Ctrl-C reaches the engine only, which stops the program in order.
  const child = spawn(process.execPath, args, { cwd: project.dir, env, stdio: ["pipe", "pipe", "pipe"], detached: true });
  running.add(child);
  const stop = () => child.kill("SIGKILL");
  run.signal?.addEventListener("abort", stop, { once: true });
  createInterface({ input: child.stdout }).on("line", (line) => run.onOutput(line, "stdout"));
  createInterface({ input: child.stderr }).on("line", (line) => run.onOutput(line, "stderr"));
  return new Promise((resolvePromise, reject) => {
    child.once("error", reject);
    child.once("close", (code, signal) => {
      running.delete(child);
      run.signal?.removeEventListener("abort", stop);
      resolvePromise(code ?? (signal ? 128 : 1));
    });
  });
}
