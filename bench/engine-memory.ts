// The engine's own memory and time per resource, without a program or a service: N cohort registrations, as the
// monitor decodes them (each its own copy of every string), planned, carried out against a provider that answers at
// once, journaled and written to the state file; then a no-op `up`, a refresh and a destroy of the same stack.
// Run in a child process per size (`--expose-gc`), so that each size starts from the same heap:
//   node --conditions=source --expose-gc bench/engine-memory.ts <count>   prints one JSON line
// Before it measures, the same runs at a small size warm the code up, and the stack's key is derived: what is left
// grows with the count, so the cost of one more resource can be compared between sizes.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Deployment, type Operation } from "../provider/engine/deployment.ts";
import { defaultParallel } from "../provider/engine/index.ts";
import type { Registration } from "../provider/engine/monitor.ts";
import type { ResourceCalls } from "../provider/engine/resource-calls.ts";
import { PassphraseCrypter } from "../provider/engine/secrets.ts";
import { Snapshot } from "../provider/engine/snapshot.ts";
import { makeUrn, STACK_TYPE } from "../provider/engine/urn.ts";
import { providerModule } from "../provider/runtime/resources/shim.ts";
import type { PropertyMap } from "../provider/protocol/values.ts";

export interface EngineMemory {
  count: number;
  /** Heap the engine holds once every resource is registered and recorded (after a full GC), beyond its start. */
  heldBytes: number;
  /** The largest heap seen while it ran (sampled, garbage included), beyond its start. */
  peakBytes: number;
  /** Milliseconds of each operation: wall time, and the process's CPU time (steadier on a shared machine). */
  ms: Record<"up" | "noop" | "refresh" | "destroy", number>;
  cpuMs: Record<"up" | "noop" | "refresh" | "destroy", number>;
  stateBytes: number;
}

const TYPE = "pulumi-nodejs:dynamic/audience:Cohort";
const PASSPHRASE = "bench passphrase";
/** Resources of the runs that warm the code up before anything is measured. */
const WARM_UP = 300;
/** A fresh copy of a string, as each decoded gRPC message holds its own. */
const copy = (s: string) => Buffer.from(s).toString();
const gc = () => (globalThis as { gc?: () => void }).gc?.();

/** Answers at once: outputs as the service answers a cohort. */
const provider: ResourceCalls = {
  check: async (_urn: string, _olds: PropertyMap, news: PropertyMap) => ({ inputs: news, failures: [] }),
  diff: async () => ({ changes: "none", replaces: [], diffs: [], deleteBeforeReplace: false }),
  create: async (_urn: string, inputs: PropertyMap) => {
    const at = new Date().toISOString();
    return {
      id: crypto.randomUUID(),
      outputs: { ...inputs, createdAt: at, updatedAt: at, resourceType: "cohorts", status: "ready", statusChangedAt: at, statusError: null, archivedAt: null, populationCount: 5000, residenceCount: 2105 },
    };
  },
  update: async (_id: string, _urn: string, olds: PropertyMap) => olds,
  read: async (id: string, _urn: string, outputs?: PropertyMap) => ({ id, outputs: outputs ?? {} }),
  delete: async () => undefined,
} as unknown as ResourceCalls;

function registration(i: number, stackUrn: string): Registration {
  const inputs: PropertyMap = { __provider: copy(providerModule("cohorts")), deletionMode: copy("delete"), name: copy(`cohort ${i}`), explore: false };
  return {
    type: copy(TYPE), name: copy(`cohort-${i}`), parent: copy(stackUrn), custom: true, inputs, dependencies: [],
    propertyDependencies: { __provider: [], deletionMode: [], name: [] }, provider: "", ignoreChanges: [], replaceOnChanges: [],
    additionalSecretOutputs: [], aliasUrns: [], importId: "", sourcePosition: copy(`project:///index.ts#2,${i % 80}`),
  };
}

/** `salt`: the new stack's salt state, its key already derived (about a second by design, and not per resource). */
interface Measured {
  ms: number;
  cpuMs: number;
  held: number;
  /** The state file's size once the run is done. */
  stateBytes: number;
}

async function run(statePath: string, operation: Operation, count: number, sample: () => void, salt: string): Promise<Measured> {
  const t = performance.now();
  const cpu = process.cpuUsage();
  const snapshot = await Snapshot.load(statePath, PASSPHRASE, salt);
  const deployment = new Deployment({
    project: "bench", stack: "bench", snapshot, dryRun: false, parallel: defaultParallel(), emit: sample,
    provider: async () => provider, stackOutputs: async () => ({}),
  });
  let held = 0;
  if (operation === "up") {
    const stack = makeUrn("bench", "bench", STACK_TYPE, "bench-bench", "");
    await deployment.register({ ...registration(0, ""), type: STACK_TYPE, name: "bench-bench", custom: false, inputs: {}, propertyDependencies: {} });
    // The program registers everything at once; the engine plans and carries out `parallel` at a time.
    const registered: Promise<unknown>[] = [];
    for (let i = 0; i < count; i++) {
      registered.push(deployment.register(registration(i, stack)));
      if (i % 1000 === 999) await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(registered);
    await deployment.registerOutputs(stack, {});
    await deployment.settled();
    await deployment.deleteUndeclared();
    gc();
    held = process.memoryUsage().heapUsed;
  } else if (operation === "refresh") {
    await deployment.refresh();
  } else {
    await deployment.destroy();
  }
  if (deployment.progress.failed) throw new Error(`${operation}: ${JSON.stringify(deployment.progress.steps.find((s) => s.phase === "failed"))}`);
  await snapshot.compact();
  const spent = process.cpuUsage(cpu);
  return { ms: performance.now() - t, cpuMs: (spent.user + spent.system) / 1000, held, stateBytes: statSync(statePath).size };
}

export async function measureEngineMemory(count: number): Promise<EngineMemory> {
  const dir = mkdtempSync(join(tmpdir(), "audience-engine-memory-"));
  const statePath = join(dir, "bench.json");
  try {
    const { saltState: salt } = await PassphraseCrypter.open(PASSPHRASE);
    const cycle = async (path: string, size: number, sample: () => void) => {
      const results = [];
      for (const operation of ["up", "up", "refresh", "destroy"] as const) results.push(await run(path, operation, size, sample, salt));
      return results;
    };
    await cycle(join(dir, "warm-up.json"), WARM_UP, () => undefined);
    gc();
    const start = process.memoryUsage().heapUsed;
    let peak = start;
    let events = 0;
    const sample = () => {
      if (++events % 64 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed);
    };
    const [up, noop, refresh, destroy] = (await cycle(statePath, count, sample)) as [Measured, Measured, Measured, Measured];
    return {
      count, heldBytes: up.held - start, peakBytes: peak - start, stateBytes: up.stateBytes,
      ms: { up: up.ms, noop: noop.ms, refresh: refresh.ms, destroy: destroy.ms },
      cpuMs: { up: up.cpuMs, noop: noop.cpuMs, refresh: refresh.cpuMs, destroy: destroy.cpuMs },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const count = Number(process.argv[2] ?? 1000);
  console.log(JSON.stringify(await measureEngineMemory(count)));
}
