// `npm run bench`: time and peak memory to build and stream a hosted CSV for 100k and 1M people, through the
// outputs engine and through the whole emulator over HTTP, against a baseline that writes the same rows
// straight to a file. Each run is its own process, so each peak memory is its own.
//   npm run bench [-- 100000 1000000]
//   Then bench/drift.ts: `audience drift` over 5 accounts x 2,000 resources against one GET per resource.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Table from "cli-table3";

interface Run {
  mode: "baseline" | "engine" | "service";
  size: number;
  phases: { world?: number; build?: number; deliver?: number };
  total: number;
  peakRssMb: number;
  bytes: number;
  sha256: string;
}

const sizes = process.argv.slice(2).map(Number).filter((n) => Number.isInteger(n) && n > 0);
const dir = mkdtempSync(join(tmpdir(), "audience-bench-"));
const DESCRIPTION = {
  baseline: "baseline: same rows, hand-joined, fs write",
  engine: "outputs engine: table + streamed CSV",
  service: "emulator over HTTP: create + build + download",
};

function run(mode: Run["mode"], size: number): Run {
  const out = join(dir, `${mode}-${size}.csv`);
  const stdout = execFileSync(process.execPath, ["--conditions=source", join(import.meta.dirname, "scenario.ts"), mode, String(size), out], { encoding: "utf8" });
  rmSync(out, { force: true });
  return JSON.parse(stdout.trim().split("\n").at(-1) as string) as Run;
}

const table = new Table({ style: { head: [], border: [] }, head: ["people", "path", "world ms", "build ms", "deliver ms", "total ms", "x baseline", "peak RSS MB", "CSV MB", "same bytes as baseline"] });
try {
  for (const size of sizes.length ? sizes : [100_000, 1_000_000]) {
    const baseline = run("baseline", size);
    for (const result of [baseline, run("engine", size), run("service", size)]) {
      table.push([
        size.toLocaleString("en-US"), DESCRIPTION[result.mode], result.phases.world ?? "", result.phases.build ?? "-", result.phases.deliver ?? "",
        result.total, (result.total / baseline.total).toFixed(2), result.peakRssMb, (result.bytes / 1e6).toFixed(1),
        // The emulator mints its own resource ids, which name the payload columns and seed the scores.
        result.mode === "service" ? "n/a (own ids)" : result.sha256 === baseline.sha256 ? "yes" : "NO",
      ]);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(table.toString());
console.log("world: generate the population (service: first request); build: create cohorts, outcome, scope and target over HTTP,");
console.log("each build filling counts and billing; deliver: compute and write the CSV (service: GET the signed output_url).");

// Drift over a fleet (5 accounts x 2,000 resources) against one GET per resource, in its own process.
execFileSync(process.execPath, ["--conditions=source", join(import.meta.dirname, "drift.ts")], { stdio: "inherit" });
