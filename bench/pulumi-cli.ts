// Real-CLI rows: `pulumi up`, a no-op `pulumi up`, `pulumi refresh` and `pulumi destroy` of 1, then of 500 cohorts
// (20 with --quick; --pulumi-cohorts alone if given), each a whole `pulumi` process (wall, and CPU of it and every
// process it waited for: language host, program, plugins), against the emulator in a process of its own. Four
// programs, each in a fresh stack and emulator, taken in turn for each round: the native face
// (`pulumi-audience/native`, this package's plugin `pulumi-resource-audience` found on PATH as the CLI finds it)
// against the bench's bare plugin under the same name (bench/pulumi-bare-plugin.ts) running the same program; the
// dynamic face (`pulumi-audience`) against the native one and against a bare dynamic provider (bench/programs.ts) in
// the same Pulumi dynamic-provider host, whose own cost against the native face shows that host's floor. The bare
// plugin answers Read from what it is given; the bare face's stack is refreshed a second time by the same plugin
// making the one GET per Read a refresh exists for, the refresh's floor, also reported against the bare plugin's own
// refresh (what the GET costs a plugin doing nothing else); that refresh and the native face's are made once more
// with NETWORK_LATENCY_MS added to every GET, as a remote service has (a change can win on loopback and lose there).
// Programs are installed from `npm pack` as a user installs the package; the CLI is `npm run pulumi:install`'s.
import { execFileSync, spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { emulatorControl } from "pulumi-audience/emulator";
import { atMost, baselineScript, ensureBuilt, LoadRange, median, NETWORK_LATENCY_MS, PASSPHRASE, ROOT, startChild, type Bench, type Row } from "./measure.ts";
import { PROGRAM, projectFile } from "./programs.ts";
import type { EmulatorReady } from "./service.ts";

const ROUNDS = 3;
const OPERATIONS = ["up", "no-op up", "refresh", "destroy"] as const;
type Operation = (typeof OPERATIONS)[number];
const FACES = ["bare", "native", "bare-dynamic", "dynamic"] as const;
type Face = (typeof FACES)[number];

export interface Timed {
  ms: number;
  cpuMs: number;
}

/** The folder holding `pulumi` and its language host (the last line `npm run pulumi:install` prints). */
export function pulumiDir(): string {
  const out = execFileSync(process.execPath, [join(ROOT, "scripts", "pulumi-install.ts")], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  return out.trim().split("\n").at(-1)!;
}

/** A `node_modules` with this package from `npm pack` (built first) and its dependencies linked from this checkout's. */
export function installedModules(work: string): string {
  ensureBuilt();
  const [packed] = JSON.parse(execFileSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", work], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] })) as { filename: string }[];
  execFileSync("tar", ["-xzf", join(work, packed!.filename), "-C", work]);
  const modules = join(work, "node_modules");
  mkdirSync(modules);
  renameSync(join(work, "package"), join(modules, "pulumi-audience"));
  for (const entry of readdirSync(join(ROOT, "node_modules"))) {
    if (entry.startsWith(".") || entry === "pulumi-audience") continue;
    symlinkSync(realpathSync(join(ROOT, "node_modules", entry)), join(modules, entry));
  }
  return modules;
}

/** A program folder using the installed package. */
export function program(work: string, name: string, source: string, modules: string): string {
  const dir = join(work, name);
  mkdirSync(dir);
  writeFileSync(join(dir, "Pulumi.yaml"), projectFile(name));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name, private: true, type: "module" }));
  writeFileSync(join(dir, "index.ts"), source);
  symlinkSync(modules, join(dir, "node_modules"));
  return dir;
}

/** A folder holding only an executable `pulumi-resource-audience` that runs `args` with this Node. */
function pluginOnPath(work: string, name: string, args: string[]): string {
  const dir = join(work, name);
  mkdirSync(dir);
  const file = join(dir, "pulumi-resource-audience");
  writeFileSync(file, `#!/bin/sh\nexec ${[process.execPath, ...args].map((a) => `'${a}'`).join(" ")} "$@"\n`);
  chmodSync(file, 0o755);
  return dir;
}

/**
 * The environment a bench's `pulumi` runs in: `path`, then the CLI's folder (`cli`, from pulumiDir) and this Node on
 * PATH, its own PULUMI_HOME and file backend, no update check, plugin download or registry lookup, no colour. A Node.js
 * program's preload is its Pulumi.yaml's `nodeargs` (projectFile), which reaches the program alone, as users give it.
 */
export function pulumiEnv(options: { cli: string; path?: string[]; home: string; backend: string }): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PATH: [...(options.path ?? []), options.cli, dirname(process.execPath), process.env["PATH"] ?? ""].join(delimiter),
    PULUMI_HOME: options.home,
    PULUMI_BACKEND_URL: `file://${options.backend}`,
    PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    PULUMI_DISABLE_REGISTRY_RESOLVE: "true",
    NO_COLOR: "1",
    NODE_OPTIONS: "",
  };
}

/** Runs `pulumi` to its end under /usr/bin/time: wall and CPU (user and system, its waited descendants included). */
export function timed(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Timed> {
  const t = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn("/usr/bin/time", ["-f", "%U %S", command, ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (b: Buffer) => (out = (out + b.toString()).slice(-4000)));
    child.stderr.on("data", (b: Buffer) => (err = (err + b.toString()).slice(-4000)));
    child.once("error", reject);
    child.once("close", (code) => {
      const ms = performance.now() - t;
      if (code !== 0) return reject(new Error(`pulumi ${args.join(" ")}: exit ${code}\n${out.slice(-2000)}\n${err.slice(-2000)}`));
      const [user, system] = err.trim().split("\n").at(-1)!.split(" ").map(Number);
      resolve({ ms, cpuMs: (user! + system!) * 1000 });
    });
  });
}

/** The emulator's service requests, as `METHOD`s, since the last call (the log emptied). */
export async function methods(emulator: EmulatorReady): Promise<string[]> {
  return (await emulatorControl(emulator.url).takeRequests()).map((r) => r.method);
}

interface Setup {
  cli: string;
  work: string;
  programs: Record<Face, string>;
  plugins: Record<"bare" | "reading" | "native", string>;
  skipCheckpoints: boolean;
}

type FaceRuns = Record<Operation, Timed> & { readingRefresh?: Timed; latencyRefresh?: Timed };

/** The four operations of one face in a fresh stack against a fresh emulator, each checked for what it must do. */
async function faceRuns(setup: Setup, face: Face, count: number, round: number): Promise<FaceRuns> {
  const emulator = await startChild<EmulatorReady>("service.ts", ["emulator", "0"]);
  const state = mkdtempSync(join(setup.work, `state-${face}-${round}-`));
  try {
    const backend = join(state, "backend");
    mkdirSync(backend);
    const env: NodeJS.ProcessEnv = {
      ...pulumiEnv({ cli: setup.cli, path: face === "bare" || face === "native" ? [setup.plugins[face]] : [], home: join(state, "home"), backend }),
      AUDIENCE_BASE_URL: `${emulator.ready.url}/v1`,
      AUDIENCE_API_KEY: emulator.ready.apiKey,
      BENCH_COUNT: String(count),
      ...(setup.skipCheckpoints ? { PULUMI_SKIP_CHECKPOINTS: "true" } : {}),
    };
    const pulumi = (args: string[], environment = env) => timed(join(setup.cli, "pulumi"), [...args, "--non-interactive"], setup.programs[face], environment);
    await pulumi(["stack", "select", "--create", "--stack", `${face}${round}`]);
    await methods(emulator.ready);
    const expect = (operation: Operation, got: string[], method: string, n: number) => {
      const of = got.filter((m) => m === method).length;
      const writes = got.filter((m) => m !== "GET").length;
      if (of !== n || writes !== (method === "GET" ? 0 : n)) throw new Error(`${face} ${operation} of ${count}: ${of} ${method} and ${writes} writes, expected ${n} ${method}`);
    };
    const up = await pulumi(["up", "--yes", "--skip-preview"]);
    expect("up", await methods(emulator.ready), "POST", count);
    const noop = await pulumi(["up", "--yes", "--skip-preview", "--expect-no-changes"]);
    expect("no-op up", await methods(emulator.ready), "POST", 0);
    const refresh = await pulumi(["refresh", "--yes", "--skip-preview", "--expect-no-changes"]);
    const reads = await methods(emulator.ready);
    if (reads.some((m) => m !== "GET")) throw new Error(`${face} refresh wrote: ${reads.join(" ")}`);
    let readingRefresh: Timed | undefined;
    let latencyRefresh: Timed | undefined;
    if (face === "bare" || face === "native") {
      // The bare face's refreshes that read run its plugin with --reads; the native face's read as they always do.
      const readingEnv = face === "bare" ? { ...env, PATH: [setup.plugins.reading, env["PATH"]].join(delimiter) } : env;
      const readingRefreshRun = async () => {
        const run = await pulumi(["refresh", "--yes", "--skip-preview", "--expect-no-changes"], readingEnv);
        expect("refresh", await methods(emulator.ready), "GET", count);
        return run;
      };
      if (face === "bare") readingRefresh = await readingRefreshRun();
      const plane = emulatorControl(emulator.ready.url);
      await plane.setFaults([{ method: "GET", path: "/**", latency_ms: NETWORK_LATENCY_MS }]);
      latencyRefresh = await readingRefreshRun();
      await plane.setFaults([]);
    }
    const destroy = await pulumi(["destroy", "--yes", "--skip-preview"]);
    expect("destroy", await methods(emulator.ready), "DELETE", count);
    return { up, "no-op up": noop, refresh, destroy, ...(readingRefresh ? { readingRefresh } : {}), ...(latencyRefresh ? { latencyRefresh } : {}) };
  } finally {
    await emulator.stop();
    rmSync(state, { recursive: true, force: true });
  }
}

const BASELINES: Record<"bare" | "native" | "bare-dynamic", string> = {
  bare: "the bench's bare plugin, same program",
  native: "the native face",
  "bare-dynamic": "a bare dynamic provider, same host",
};

export const pulumiCliBench: Bench = {
  id: "pulumi",
  async run({ quick, pulumiCohorts, pulumiSkipCheckpoints = false }) {
    // One cohort first, unless a size is asked: what every command costs before any resource.
    const counts = pulumiCohorts === undefined ? [1, quick ? 20 : 500] : [pulumiCohorts];
    const rounds = quick ? 1 : ROUNDS;
    const cli = pulumiDir();
    const work = mkdtempSync(join(tmpdir(), "audience-bench-pulumi-"));
    try {
      const modules = installedModules(work);
      // The baseline plugin starts as the native one does: JavaScript, its compiled code cached (measure.ts).
      const barePlugin = await baselineScript(join(import.meta.dirname, "pulumi-bare-plugin.ts"));
      const setup: Setup = {
        cli, work,
        programs: { bare: program(work, "bare", PROGRAM.native, modules), native: program(work, "native", PROGRAM.native, modules), dynamic: program(work, "dynamic", PROGRAM.cohorts, modules), "bare-dynamic": program(work, "bare-dynamic", PROGRAM.bareDynamic, modules) },
        plugins: {
          bare: pluginOnPath(work, "bare-plugin", [barePlugin]),
          reading: pluginOnPath(work, "reading-plugin", [barePlugin, "--reads"]),
          native: pluginOnPath(work, "native-plugin", [join(modules, "pulumi-audience", "bin", "pulumi-resource-audience.js")]),
        },
        skipCheckpoints: pulumiSkipCheckpoints,
      };
      const rows: Row[] = [];
      for (const count of counts) {
        const runs: Record<Face, FaceRuns[]> = { bare: [], native: [], "bare-dynamic": [], dynamic: [] };
        const loads = new LoadRange();
        for (let round = 0; round < rounds; round++) {
          for (const face of FACES) {
            loads.sample();
            runs[face].push(await faceRuns(setup, face, count, round));
          }
        }
        const load = `load ${loads.min.toFixed(0)}-${loads.max.toFixed(0)}, median of ${rounds}${pulumiSkipCheckpoints ? ", PULUMI_SKIP_CHECKPOINTS=true" : ""}`;
        rows.push(...countRows(runs, count, load));
      }
      return rows;
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  },
};

/** The rows of one size: each face against its baselines, operation by operation, then the refresh's floors. */
function countRows(runs: Record<Face, FaceRuns[]>, count: number, load: string): Row[] {
  const of = (face: Face, operation: Operation, key: keyof Timed) => median(runs[face].map((r) => r[operation][key]));
  const rows: Row[] = [];
  for (const operation of OPERATIONS) {
    // The dynamic-provider host's own floor (the bare dynamic provider against the native face) is reported; the
    // dynamic face is held to the native face (the issue's goal) and to that floor.
    for (const [face, baseFace, max] of [["native", "bare", 1.2], ["dynamic", "native", 1.5], ["bare-dynamic", "native", undefined], ["dynamic", "bare-dynamic", 1.2]] as const) {
      for (const [key, unit] of [["ms", "wall"], ["cpuMs", "CPU"]] as const) {
        const value = of(face, operation, key);
        const baseline = of(baseFace, operation, key);
        const row = {
          what: `pulumi ${operation} ${count} (${unit})`,
          measured: face === "bare-dynamic" ? "a bare dynamic provider under the pulumi CLI" : `the ${face} face under the pulumi CLI`,
          value, baseline, baselineWhat: BASELINES[baseFace], unit: "ms", note: load,
        };
        rows.push(max === undefined ? { ...row, ratio: value / baseline, goal: "report" } : atMost(row, max));
      }
    }
  }
  // The refresh against the least a refresh can do: one GET per resource, on loopback and at a network's latency.
  const reading = (key: keyof Timed, latency: boolean) => median(runs.bare.map((r) => (latency ? r.latencyRefresh! : r.readingRefresh!)[key]));
  for (const latency of [false, true]) {
    for (const [key, unit] of [["ms", "wall"], ["cpuMs", "CPU"]] as const) {
      rows.push(atMost({
        what: `pulumi refresh ${count}${latency ? ` +${NETWORK_LATENCY_MS} ms per GET` : ""} (${unit})`, measured: "the native face under the pulumi CLI",
        value: latency ? median(runs.native.map((r) => r.latencyRefresh![key])) : of("native", "refresh", key), baseline: reading(key, latency),
        baselineWhat: "the bench's bare plugin, one GET per Read", unit: "ms", note: load,
      }, 1.2));
    }
  }
  // What that GET costs a plugin doing nothing else: no plugin that reads can come closer to the bare plugin.
  for (const [key, unit] of [["ms", "wall"], ["cpuMs", "CPU"]] as const) {
    const value = reading(key, false);
    const baseline = of("bare", "refresh", key);
    rows.push({
      what: `pulumi refresh ${count} (${unit})`, measured: "the bench's bare plugin making one GET per Read", value, baseline,
      baselineWhat: BASELINES.bare, unit: "ms", note: load, ratio: value / baseline, goal: "report",
    });
  }
  return rows;
}
