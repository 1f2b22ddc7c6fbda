// The floor the Pulumi runtime sets: a program run by the language runtime against a monitor that answers at once,
// with the outputs recorded by name (what the engine answers) or else with the inputs. Or the least any engine must
// do for an `up`: a monitor that makes each resource's POST with undici (`parallel` connections, as the engine's
// operations in flight) and answers with the created document in the program's names, with no state, check or
// diff. Run as its own process, on the built package (`dist/`), as an installed package runs:
//   node bench/program-floor.ts <program dir> <count> [outputs.json]                     prints {"ms": ...}
//   node bench/program-floor.ts <program dir> <count> --create <url> <apiKey> <parallel>  prints {"ms": ...}
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { PropertyMap } from "../provider/protocol/values.ts";
import type { Registration } from "../provider/engine/monitor.ts";

/** The package's folder, wherever this script runs inside it (bench/, or as measure.ts's `baselineScript` writes it). */
const root = dirname(createRequire(import.meta.url).resolve("pulumi-audience/package.json"));
const dist = join(root, "dist", "provider", "engine");
if (!existsSync(join(dist, "language.js"))) throw new Error("build the package first (npm run build)");
const { runLanguageRuntime } = (await import(join(dist, "language.js"))) as typeof import("../provider/engine/language.ts");
const { startMonitor } = (await import(join(dist, "monitor.js"))) as typeof import("../provider/engine/monitor.ts");
const { loadProject } = (await import(join(dist, "project.js"))) as typeof import("../provider/engine/project.ts");
const { defaultParallel } = (await import(join(dist, "parallel.js"))) as typeof import("../provider/engine/parallel.ts");

const [dir, count, ...rest] = process.argv.slice(2);

/** The answer to a registration: the recorded outputs, the inputs, or the created document; and what to close after. */
async function answering(): Promise<{ answer: (reg: Registration) => Promise<PropertyMap>; close: () => Promise<void> }> {
  if (rest[0] === "--create") {
    const [, url, apiKey, parallel] = rest;
    const { camelKey } = (await import(join(root, "dist", "sdk", "contract", "naming.js"))) as typeof import("../sdk/contract/naming.ts");
    // Loaded only here: a monitor answering from memory loads no HTTP client.
    const { Pool, request } = await import("./lean-undici.ts");
    const pool = new Pool(url!, { connections: Number(parallel) });
    const headers = { authorization: `Bearer ${apiKey}`, "content-type": "application/json" };
    const answer = async (reg: Registration): Promise<PropertyMap> => {
      if (!reg.custom) return reg.inputs;
      const res = await request(pool, { method: "POST", path: "/v1/cohorts", headers, body: JSON.stringify({ name: reg.inputs["name"] }) });
      if (res.statusCode >= 300) throw new Error(`POST: ${res.statusCode}`);
      const created = Object.entries((await res.body.json()) as PropertyMap).map(([key, value]) => [camelKey(key), value]);
      return { ...reg.inputs, ...Object.fromEntries(created) };
    };
    return { answer, close: () => pool.close() };
  }
  const recorded = new Map<string, PropertyMap>(rest[0] ? Object.entries(JSON.parse(readFileSync(rest[0], "utf8")) as Record<string, PropertyMap>) : []);
  return { answer: async (reg) => recorded.get(reg.name) ?? reg.inputs, close: async () => undefined };
}

const { answer, close } = await answering();
const monitor = await startMonitor({
  register: async (reg: Registration) => ({ urn: `urn:pulumi:bench::bench::${reg.type}::${reg.name}`, id: reg.custom ? reg.name : "", outputs: await answer(reg) }),
  registerOutputs: async () => undefined,
  read: async () => { throw new Error("not served"); },
  invoke: async () => { throw new Error("not served"); },
  log: () => undefined,
});
const t = performance.now();
const code = await runLanguageRuntime({
  project: loadProject(dir!), stack: "bench", monitorAddress: monitor.address, dryRun: false, parallel: defaultParallel(),
  env: { ...process.env, BENCH_COUNT: count }, onOutput: () => undefined,
});
const ms = performance.now() - t;
await monitor.close();
await close();
if (code !== 0) throw new Error(`${dir} exited with ${code}`);
console.log(JSON.stringify({ ms }));
