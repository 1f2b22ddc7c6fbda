// Engine rows: `up`, no-op `up` and `destroy` of N independent cohorts through the local engine, against the same
// requests made with undici at the engine's concurrency, and against a bare program registering N resources; and the
// floor the Pulumi runtime sets: the cohorts program itself against a monitor that answers at once with the outputs
// the engine answers.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Pool } from "undici";
import { runProgram, Snapshot } from "../provider/engine/index.ts";
import { childNodeOptions, runLanguageRuntime } from "../provider/engine/language.ts";
import { startMonitor, type MonitorHandler } from "../provider/engine/monitor.ts";
import { loadProject } from "../provider/engine/project.ts";
import { urnName } from "../provider/engine/urn.ts";
import type { PropertyMap } from "../provider/plugin/values.ts";
import { atMost, elapsed, inParallel, ROOT, startChild, type Bench, type Row } from "./measure.ts";
import type { EmulatorReady } from "./service.ts";

/** The engine's default number of operations in flight. */
const PARALLEL = 8;
const PASSPHRASE = "bench passphrase";
const FLOOR = "the cohorts program, its monitor answering at once with the engine's outputs";

// Programs live inside the package, where `pulumi-audience` resolves to its sources.
const PROGRAMS = join(ROOT, ".audience", "bench");
const PROJECT_YAML = (name: string) => `name: ${name}\nruntime:\n  name: nodejs\n  options:\n    typescript: false\n    nodeargs: --conditions=source\nmain: index.ts\n`;
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

/**
 * A program run by the language runtime, registering `count` resources with a monitor that answers at once: with
 * the outputs `recorded` by name (what the engine answers), else with the inputs.
 */
async function againstInstantMonitor(dir: string, count: number, recorded = new Map<string, PropertyMap>()): Promise<number> {
  const handler: MonitorHandler = {
    register: async (reg) => ({ urn: `urn:pulumi:bench::bench-bare::${reg.type}::${reg.name}`, id: reg.custom ? reg.name : "", outputs: recorded.get(reg.name) ?? reg.inputs }),
    registerOutputs: async () => undefined,
    read: async () => { throw new Error("not served"); },
    invoke: async () => { throw new Error("not served"); },
    log: () => undefined,
  };
  const monitor = await startMonitor(handler);
  try {
    return await elapsed(async () => {
      const code = await runLanguageRuntime({
        project: loadProject(dir), stack: "bench", monitorAddress: monitor.address, dryRun: false, parallel: PARALLEL,
        env: { ...process.env, BENCH_COUNT: String(count), NODE_OPTIONS: childNodeOptions() }, onOutput: () => undefined,
      });
      if (code !== 0) throw new Error(`${dir} exited with ${code}`);
    });
  } finally {
    await monitor.close();
  }
}

interface EngineRun {
  up: number;
  noop: number;
  noopRequests: number;
  destroy: number;
  /** Each resource's outputs as the state held them before the destroy, by name. */
  outputs: Map<string, PropertyMap>;
}

async function engineRuns(dir: string, count: number, stateDir: string): Promise<EngineRun> {
  const emulator = await startChild<EmulatorReady>("service.ts", ["emulator", "0"]);
  try {
    const env = { AUDIENCE_BASE_URL: `${emulator.ready.url}/v1`, AUDIENCE_API_KEY: emulator.ready.apiKey, BENCH_COUNT: String(count) };
    let statePath = "";
    const run = async (operation: "up" | "destroy") => {
      const t = performance.now();
      const result = await runProgram({ cwd: dir, operation, stack: `n${count}`, passphrase: PASSPHRASE, stateDir, env, parallel: PARALLEL });
      if (!result.ok) throw new Error(`${operation} of ${count}: ${result.error}`);
      statePath = result.statePath;
      return performance.now() - t;
    };
    const requests = async () => ((await (await fetch(`${emulator.ready.url}/_emulator/requests`)).json()) as { path: string }[])
      .filter((r) => !r.path.startsWith("/_emulator")).length;
    const up = await run("up");
    const before = await requests();
    const noop = await run("up");
    const noopRequests = (await requests()) - before;
    const state = await Snapshot.load(statePath, PASSPHRASE);
    const outputs = new Map(state.resources.map((r) => [urnName(r.urn), r.outputs]));
    return { up, noop, noopRequests, outputs, destroy: await run("destroy") };
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

export const engine: Bench = {
  id: "engine",
  async run({ quick }) {
    const cohorts = writeProgram("cohorts");
    const bare = writeProgram("bare");
    const stateDir = mkdtempSync(join(tmpdir(), "audience-bench-state-"));
    const rows: Row[] = [];
    try {
      for (const count of quick ? [200] : [500, 2000]) {
        const direct = await undiciRuns(count);
        const runs = await engineRuns(cohorts, count, stateDir);
        const floor = await againstInstantMonitor(bare, count);
        // What the Pulumi runtime alone takes to run the cohorts program: the part of every `up` the engine cannot cut.
        const program = await againstInstantMonitor(cohorts, count, runs.outputs);
        const what = `engine, ${count.toLocaleString("en-US")} independent cohorts`;
        rows.push(atMost({ what, measured: "up (wall time)", unit: "ms", value: runs.up, baseline: direct.create, baselineWhat: `the same POSTs with undici, ${PARALLEL} at a time` }, 2));
        rows.push(atMost({
          what, measured: "no-op up (wall time)", unit: "ms", value: runs.noop, baseline: floor, baselineWhat: "a bare program registering as many resources",
          note: `${runs.noopRequests} service requests`,
        }, 1.5));
        rows.push({
          what, measured: `${FLOOR} (wall time)`, unit: "ms", value: program, baseline: floor,
          baselineWhat: "a bare program registering as many resources", ratio: program / floor, goal: "report",
        });
        rows.push({
          what, measured: "no-op up (wall time)", unit: "ms", value: runs.noop, baseline: program,
          baselineWhat: FLOOR, ratio: runs.noop / program, goal: "report",
        });
        rows.push({ what, measured: "destroy (wall time)", unit: "ms", value: runs.destroy, baseline: direct.remove, baselineWhat: `the same DELETEs with undici, ${PARALLEL} at a time`, ratio: runs.destroy / direct.remove, goal: "report" });
      }
      return rows;
    } finally {
      rmSync(stateDir, { recursive: true, force: true });
    }
  },
};
