// The floor the Pulumi runtime sets: a program run by the language runtime against a monitor that answers at once,
// with the outputs recorded by name (what the engine answers) or else with the inputs. Run as its own process, on
// the built package (`dist/`), as an installed package runs:
//   node bench/program-floor.ts <program dir> <count> [outputs.json]   prints {"ms": ...}
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { PropertyMap } from "../provider/protocol/values.ts";
import type { Registration } from "../provider/engine/monitor.ts";

const dist = join(import.meta.dirname, "..", "dist", "provider", "engine");
if (!existsSync(join(dist, "language.js"))) throw new Error("build the package first (npm run build)");
const { runLanguageRuntime } = (await import(join(dist, "language.js"))) as typeof import("../provider/engine/language.ts");
const { startMonitor } = (await import(join(dist, "monitor.js"))) as typeof import("../provider/engine/monitor.ts");
const { loadProject } = (await import(join(dist, "project.js"))) as typeof import("../provider/engine/project.ts");
const { defaultParallel } = (await import(join(dist, "index.js"))) as typeof import("../provider/engine/index.ts");

const [dir, count, outputsFile] = process.argv.slice(2);
const recorded = new Map<string, PropertyMap>(outputsFile ? Object.entries(JSON.parse(readFileSync(outputsFile, "utf8")) as Record<string, PropertyMap>) : []);
const monitor = await startMonitor({
  register: async (reg: Registration) => ({ urn: `urn:pulumi:bench::bench::${reg.type}::${reg.name}`, id: reg.custom ? reg.name : "", outputs: recorded.get(reg.name) ?? reg.inputs }),
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
if (code !== 0) throw new Error(`${dir} exited with ${code}`);
console.log(JSON.stringify({ ms }));
