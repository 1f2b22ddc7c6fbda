// One measured run, in its own process so its peak memory is its own:
//   node --conditions=source bench/scenario.ts <baseline|engine|service> <people> <outFile>
// Prints one JSON line: phase timings (ms), CPU time (ms), peak RSS (MB), bytes written and the file's SHA-256.
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream, statSync } from "node:fs";
import { once } from "node:events";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { startEmulator } from "pulumi-audience/emulator";
import { writeCsv } from "../emulator/outputs/csv.ts";
import { cellText, targetTable } from "../emulator/outputs/target.ts";
import { generateWorld } from "../emulator/world/population.ts";
import * as pipelineDef from "./pipeline.ts";

const [mode = "baseline", sizeText = "100000", out = "/tmp/bench.csv"] = process.argv.slice(2);
const size = Number(sizeText);
const started = performance.now();
const phases: Record<string, number> = {};
const mark = (name: string, since: number) => (phases[name] = Math.round(performance.now() - since));

async function baseline(): Promise<void> {
  // The same rows, formatted by hand and written straight to a file: no CSV library, no HTTP.
  const world = generateWorld({ size });
  mark("world", started);
  const t = performance.now();
  const table = targetTable(world, pipelineDef.target, pipelineDef.scope, pipelineDef.resources());
  const file = createWriteStream(out);
  file.write(table.columns.join(",") + "\n");
  for (const row of table.rows()) {
    if (!file.write(row.map(cellText).join(",") + "\n")) await once(file, "drain");
  }
  file.end();
  await once(file, "finish");
  mark("deliver", t);
}

async function engine(): Promise<void> {
  // The outputs engine in-process: population, scores, representation and the streamed CSV writer.
  const world = generateWorld({ size });
  mark("world", started);
  const t = performance.now();
  const table = targetTable(world, pipelineDef.target, pipelineDef.scope, pipelineDef.resources());
  await writeCsv(table, createWriteStream(out));
  mark("deliver", t);
}

async function service(): Promise<void> {
  // The whole emulator: resources created over HTTP (each build computes counts and billing), then the
  // hosted CSV fetched from its signed output_url and streamed to a file.
  const emulator = await startEmulator({ world: { size } });
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${emulator.url}/v1${path}`, {
      method, headers: { authorization: `Bearer ${emulator.apiKey}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await response.json()) as Record<string, unknown>;
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
  try {
    const everyone = await call("POST", "/cohorts", { name: "Everyone" });
    mark("world", started);
    let t = performance.now();
    const buyers = await call("POST", "/cohorts", { name: "Buyers", stream_name: "transactions" });
    const outcome = await call("POST", "/outcomes", { name: "Will buy", attainment_cohort_id: buyers.id });
    const scope = await call("POST", "/scopes", { name: "Pipeline", preview: false, population: { cohort_ids: [everyone.id] }, payload: { outcome_ids: [outcome.id] } });
    const target = await call("POST", "/targets", { name: "Hosted", scope_id: scope.id, representation: { mode: "identified" }, options: { type: "hosted_csv" } });
    mark("build", t);
    t = performance.now();
    const download = await fetch(String(target.output_url));
    if (download.status !== 200 || !download.body) throw new Error(`download: ${download.status}`);
    await pipeline(Readable.fromWeb(download.body as import("node:stream/web").ReadableStream), createWriteStream(out));
    mark("deliver", t);
  } finally {
    await emulator.close();
  }
}

await ({ baseline, engine, service } as Record<string, () => Promise<void>>)[mode]!();
const total = Math.round(performance.now() - started);
const hash = createHash("sha256");
await pipeline(createReadStream(out), hash);
console.log(JSON.stringify({
  mode, size, phases, total, cpuMs: Math.round((process.cpuUsage().user + process.cpuUsage().system) / 1000), peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024), bytes: statSync(out).size, sha256: hash.digest("hex"),
}));
