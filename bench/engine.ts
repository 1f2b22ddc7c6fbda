// Engine rows: `up`, no-op `up` and `destroy` of N independent cohorts, each run as users run it (bin/audience.js, a
// whole process, on the built package), against the same requests made with undici at the engine's concurrency, and
// against the floor the Pulumi runtime sets: the cohorts program, and a bare program registering N resources, each
// run by the language runtime against a monitor that answers at once (bench/program-floor.ts, its own process).
// Then the engine alone at a small and a large size (bench/engine-memory.ts): what it holds per resource and what
// each more resource costs.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Pool } from "undici";
import { Snapshot } from "../provider/engine/snapshot.ts";
import { urnName } from "../provider/engine/urn.ts";
import type { EngineMemory } from "./engine-memory.ts";
import { assertBuilt, atMost, inParallel, median, ROOT, startChild, type Bench, type Row } from "./measure.ts";
import type { EmulatorReady } from "./service.ts";

/** The engine's default number of operations in flight. */
const PARALLEL = 8;
const PASSPHRASE = "bench passphrase";
const FLOOR = "the cohorts program alone, its monitor answering at once with the engine's outputs";
const BARE = "a bare program registering as many resources, its monitor answering at once";

// Programs live inside the package, where `pulumi-audience` resolves to itself (its built `dist/`, as installed),
// and preload what a scaffold's Pulumi.yaml preloads.
const PROGRAMS = join(ROOT, ".audience", "bench");
const PROJECT_YAML = (name: string) => `name: ${name}\nruntime:\n  name: nodejs\n  options:\n    typescript: false\n    nodeargs: --require=pulumi-audience/require-node\nmain: index.ts\n`;
const PROGRAM = {
  cohorts: `import * as audience from "pulumi-audience";
for (let i = 0; i < Number(process.env["BENCH_COUNT"]); i++) new audience.Cohort(\`cohort-\${i}\`, { name: \`cohort \${i}\`, deletionMode: "delete" });
`,
  bare: `import * as pulumi from "@pulumi/pulumi";
for (let i = 0; i < Number(process.env["BENCH_COUNT"]); i++) new pulumi.CustomResource("bench:index:Item", \`item-\${i}\`, { name: \`item \${i}\` });
`,
};

function writeProgram(name: keyof typeof PROGRAM): string {
  const dir = join(PROGRAMS, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "Pulumi.yaml"), PROJECT_YAML(`bench-${name}`));
  writeFileSync(join(dir, "index.ts"), PROGRAM[name]);
  return dir;
}

/** Runs a command to its end: its wall time, its largest process's peak RSS and what it printed. */
function timed(command: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ ms: number; peakMb: number; stdout: string }> {
  const t = performance.now();
  return new Promise((resolve, reject) => {
    execFile("/usr/bin/time", ["-f", "%M", command, ...args], { maxBuffer: 1 << 30, env: { ...process.env, ...env } }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`${args.slice(0, 4).join(" ")}: ${error.message}\n${stderr.slice(-2000)}`));
      resolve({ ms: performance.now() - t, peakMb: Math.round(Number(stderr.trim().split("\n").at(-1)) / 1024), stdout });
    });
  });
}

/** The program run by the language runtime against a monitor that answers at once (with `outputs` by name, if given). */
async function againstInstantMonitor(dir: string, count: number, outputs?: string): Promise<number> {
  const { stdout } = await timed(process.execPath, [join(import.meta.dirname, "program-floor.ts"), dir, String(count), ...(outputs ? [outputs] : [])]);
  return (JSON.parse(stdout) as { ms: number }).ms;
}

interface EngineRun {
  up: number;
  noop: number;
  noopRequests: number;
  destroy: number;
  /** The largest process's peak RSS during the `up` (the program's or the engine's). */
  upPeakMb: number;
  /** Each resource's outputs as the state held them before the destroy, by name, in a JSON file. */
  outputs: string;
}

async function engineRuns(dir: string, count: number, stateDir: string): Promise<EngineRun> {
  const emulator = await startChild<EmulatorReady>("service.ts", ["emulator", "0"]);
  try {
    const env = { AUDIENCE_BASE_URL: `${emulator.ready.url}/v1`, AUDIENCE_API_KEY: emulator.ready.apiKey, BENCH_COUNT: String(count), PULUMI_CONFIG_PASSPHRASE: PASSPHRASE, NODE_OPTIONS: "" };
    const stack = `n${count}`;
    const run = async (operation: "up" | "destroy") => {
      const r = await timed(process.execPath, [join(ROOT, "bin", "audience.js"), "run", operation, "--cwd", dir, "--stack", stack, "--state-dir", stateDir, "--yes", "--json"], env);
      const result = JSON.parse(r.stdout) as { ok: boolean; error?: string };
      if (!result.ok) throw new Error(`${operation} of ${count}: ${result.error}`);
      return r;
    };
    const requests = async () => ((await (await fetch(`${emulator.ready.url}/_emulator/requests`)).json()) as { path: string }[])
      .filter((r) => !r.path.startsWith("/_emulator")).length;
    const up = await run("up");
    const before = await requests();
    const noop = await run("up");
    const noopRequests = (await requests()) - before;
    const state = await Snapshot.load(join(stateDir, `${stack}.json`), PASSPHRASE);
    const outputs = join(stateDir, `${stack}-outputs.json`);
    writeFileSync(outputs, JSON.stringify(Object.fromEntries(state.resources.map((r) => [urnName(r.urn), r.outputs]))));
    return { up: up.ms, upPeakMb: up.peakMb, noop: noop.ms, noopRequests, outputs, destroy: (await run("destroy")).ms };
  } finally {
    await emulator.stop();
  }
}

/** The same creates and deletes, with undici, `PARALLEL` at a time. */
async function undiciRuns(count: number): Promise<{ create: number; remove: number }> {
  const emulator = await startChild<EmulatorReady>("service.ts", ["emulator", "0"]);
  const pool = new Pool(emulator.ready.url, { connections: PARALLEL });
  try {
    const headers = { authorization: `Bearer ${emulator.ready.apiKey}`, "content-type": "application/json" };
    const ids: string[] = [];
    const create = await inParallel(count, PARALLEL, async (i) => {
      const res = await pool.request({ method: "POST", path: "/v1/cohorts", headers, body: JSON.stringify({ name: `cohort ${i}` }) });
      ids[i] = ((await res.body.json()) as { id: string }).id;
    });
    const remove = await inParallel(count, PARALLEL, async (i) => {
      const res = await pool.request({ method: "DELETE", path: `/v1/cohorts/${ids[i]}`, headers });
      await res.body.dump();
    });
    return { create, remove };
  } finally {
    await pool.close();
    await emulator.stop();
  }
}

/** The engine alone at `count` resources, in a process of its own. */
async function engineAlone(count: number): Promise<EngineMemory> {
  const { stdout } = await timed(process.execPath, ["--conditions=source", "--expose-gc", join(import.meta.dirname, "engine-memory.ts"), String(count)]);
  return JSON.parse(stdout) as EngineMemory;
}

export const engine: Bench = {
  id: "engine",
  async run({ quick }) {
    assertBuilt();
    const cohorts = writeProgram("cohorts");
    const bare = writeProgram("bare");
    const stateDir = mkdtempSync(join(tmpdir(), "audience-bench-state-"));
    const rows: Row[] = [];
    try {
      for (const count of quick ? [200] : [500, 2000]) {
        const direct = await undiciRuns(count);
        // The floors before and after the engine's runs, so that a change in the machine's load falls on both.
        const bareMs = [await againstInstantMonitor(bare, count)];
        const runs = await engineRuns(cohorts, count, stateDir);
        const programMs = [await againstInstantMonitor(cohorts, count, runs.outputs)];
        bareMs.push(await againstInstantMonitor(bare, count));
        programMs.push(await againstInstantMonitor(cohorts, count, runs.outputs));
        const floor = median(bareMs);
        const program = median(programMs);
        const what = `engine, ${count.toLocaleString("en-US")} independent cohorts (bin/audience.js, whole process)`;
        rows.push(atMost({ what, measured: "up (wall time)", unit: "ms", value: runs.up, baseline: program, baselineWhat: FLOOR }, 1.15));
        rows.push(atMost({ what, measured: "no-op up (wall time)", unit: "ms", value: runs.noop, baseline: floor, baselineWhat: BARE, note: `${runs.noopRequests} service requests` }, 1.3));
        rows.push(atMost({ what, measured: "destroy (wall time)", unit: "ms", value: runs.destroy, baseline: direct.remove, baselineWhat: `the same DELETEs with undici, ${PARALLEL} at a time, in the bench's process` }, 2));
        rows.push({ what, measured: "up (wall time)", unit: "ms", value: runs.up, baseline: direct.create, baselineWhat: `the same POSTs with undici, ${PARALLEL} at a time, in the bench's process`, ratio: runs.up / direct.create, goal: "report" });
        rows.push({ what, measured: `${FLOOR} (wall time)`, unit: "ms", value: program, baseline: floor, baselineWhat: BARE, ratio: program / floor, goal: "report" });
        rows.push({ what, measured: "up: peak RSS of its largest process (program or engine)", unit: "MB", value: runs.upPeakMb, baseline: runs.upPeakMb, baselineWhat: "(itself)", ratio: 1, goal: "report" });
      }
      // The engine alone, without a program or a service: what it holds and what one more resource costs.
      const [smallA, smallB, largeA, largeB] = quick ? [500, 1000, 2500, 5000] : [1000, 2000, 25_000, 50_000];
      const small = [await engineAlone(smallA), await engineAlone(smallB)] as const;
      const large = [await engineAlone(largeA), await engineAlone(largeB)] as const;
      const what = `engine alone (instant provider, no program), ${largeB.toLocaleString("en-US")} resources`;
      const baselineWhat = `the same at ${smallB.toLocaleString("en-US")} resources`;
      const perResource = (m: EngineMemory) => m.heldBytes / m.count / 1000;
      rows.push({ what, measured: "heap held per resource once all are recorded", unit: "KB", value: perResource(large[1]), baseline: perResource(small[1]), baselineWhat, ratio: perResource(large[1]) / perResource(small[1]), goal: "<= 10 KB", met: perResource(large[1]) <= 10 });
      rows.push({ what, measured: "peak heap per resource (garbage included)", unit: "KB", value: large[1].peakBytes / largeB / 1000, baseline: small[1].peakBytes / smallB / 1000, baselineWhat, ratio: (large[1].peakBytes / largeB) / (small[1].peakBytes / smallB), goal: "report" });
      rows.push({ what, measured: "state file per resource", unit: "KB", value: large[1].stateBytes / largeB / 1000, baseline: small[1].stateBytes / smallB / 1000, baselineWhat, ratio: (large[1].stateBytes / largeB) / (small[1].stateBytes / smallB), goal: "report" });
      for (const op of ["up", "noop", "refresh", "destroy"] as const) {
        // The CPU each more resource costs (wall time moves with the machine's load and the disk's syncs): between
        // the two large sizes, against between the two small ones.
        const marginal = (a: EngineMemory, b: EngineMemory) => (b.cpuMs[op] - a.cpuMs[op]) / (b.count - a.count);
        const value = marginal(...large);
        const baseline = marginal(...small);
        rows.push(atMost({ what, measured: `${op === "noop" ? "no-op up" : op}: CPU ms per more resource, ${largeA.toLocaleString("en-US")} to ${largeB.toLocaleString("en-US")}`, unit: "ms", value, baseline, baselineWhat: `the same from ${smallA.toLocaleString("en-US")} to ${smallB.toLocaleString("en-US")}` }, 1.2));
      }
      return rows;
    } finally {
      rmSync(stateDir, { recursive: true, force: true });
    }
  },
};
