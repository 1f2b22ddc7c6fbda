// `npm run bench`: every figure beside its baseline measured in the same run, as a ratio, with its goal; one table
// on stdout and the same rows as JSON.
//   npm run bench [-- --quick] [-- --only engine,cli] [-- --scale <resources>] [-- --pulumi-cohorts <n>]
//     [-- --pulumi-skip-checkpoints] [-- --json <file>]
// --quick uses smaller sizes and shorter runs to check that the bench works; --scale sets the largest stack of the
// engine's scale rows (50,000 unless said: each of its commands takes minutes there); --pulumi-cohorts the
// cohorts of the real-CLI rows (bench/pulumi-cli.ts: 1, then 500, unless said; 5,000 for the larger table), and
// --pulumi-skip-checkpoints runs them with PULUMI_SKIP_CHECKPOINTS=true (the CLI then saves the state once, at the
// end, instead of after every step: what makes 5,000 take minutes rather than hours).
// Then (unless --only leaves it out): bench/drift.ts, `audience drift` over 10 accounts x 5,000 resources (2 x 500
// with --quick) against the wire's floor and one GET per resource, in its own process with its own table; its
// goals' rows join the table.
// Last, one line on the machine (bench/machine.ts): its load through the run, on Linux the CPU time stolen by the
// hypervisor, and its speed at both ends; results.json keeps it as `machine`.
// Rows that run bin/audience.js or programs measure the built package: run `npm run build` first.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import Table from "cli-table3";
import { cli } from "./cli.ts";
import { csv } from "./csv.ts";
import { emulatorHttp, emulatorScale } from "./emulator.ts";
import { engine } from "./engine.ts";
import { floor } from "./floor.ts";
import { describeMachine, startMachineWatch } from "./machine.ts";
import { ROOT, type Bench, type Row } from "./measure.ts";
import { provider } from "./provider.ts";
import { pulumiCliBench } from "./pulumi-cli.ts";
import { pulumiLanguagesBench } from "./pulumi-languages.ts";
import { pulumiPolicyBench } from "./pulumi-policy.ts";

// The rows of the table, in this order. A new bench module adds one line here.
const benches: Bench[] = [
  provider,
  engine,
  floor,
  emulatorHttp,
  emulatorScale,
  csv,
  cli,
  pulumiCliBench,
  pulumiLanguagesBench,
  pulumiPolicyBench,
];

const { values: args } = parseArgs({
  options: { quick: { type: "boolean", default: false }, only: { type: "string" }, json: { type: "string" }, scale: { type: "string" }, "pulumi-cohorts": { type: "string" }, "pulumi-skip-checkpoints": { type: "boolean", default: false } },
});
const only = args.only?.split(",").map((s) => s.trim());
const unknown = only?.filter((id) => id !== "drift" && !benches.some((b) => b.id === id)) ?? [];
if (unknown.length > 0) {
  console.error(`unknown bench ${unknown.join(", ")}; known: ${benches.map((b) => b.id).join(", ")}`);
  process.exit(2);
}

function figure(value: number, unit: string): string {
  if (!Number.isFinite(value)) return String(value);
  const digits = unit === "requests" || Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  return `${value.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })} ${unit}`;
}

const scaleArg = args.scale === undefined ? undefined : Number(args.scale);
if (scaleArg !== undefined && !(Number.isInteger(scaleArg) && scaleArg >= 4000)) {
  console.error(`--scale takes a whole number of resources of at least 4,000 (the rows also run half of it, which must stay above 2,000); got ${args.scale}`);
  process.exit(2);
}

const pulumiCohorts = args["pulumi-cohorts"] === undefined ? undefined : Number(args["pulumi-cohorts"]);
if (pulumiCohorts !== undefined && !(Number.isInteger(pulumiCohorts) && pulumiCohorts >= 1)) {
  console.error(`--pulumi-cohorts takes a whole number of cohorts, at least 1; got ${args["pulumi-cohorts"]}`);
  process.exit(2);
}

const started = Date.now();
const machineWatch = startMachineWatch();
const rows: (Row & { bench: string })[] = [];
for (const bench of benches.filter((b) => !only || only.includes(b.id))) {
  const t = Date.now();
  process.stderr.write(`${bench.id} ...`);
  try {
    for (const row of await bench.run({ quick: args.quick, scale: scaleArg, pulumiCohorts, pulumiSkipCheckpoints: args["pulumi-skip-checkpoints"] })) rows.push({ bench: bench.id, ...row });
    process.stderr.write(` ${((Date.now() - t) / 1000).toFixed(1)} s\n`);
  } catch (error) {
    process.stderr.write(` failed: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  }
}

// Drift over a fleet, in a process of its own (its setup alone, 50,000 resources, takes minutes; --quick runs a small
// fleet): its own table first, its goals' rows in this one.
const file = resolve(args.json ?? join(ROOT, ".audience", "bench", "results.json"));
mkdirSync(dirname(file), { recursive: true });
if (!only || only.includes("drift")) {
  const rowsDir = mkdtempSync(join(tmpdir(), "audience-bench-drift-"));
  const driftRows = join(rowsDir, "rows.json");
  try {
    execFileSync(process.execPath, ["--conditions=source", join(import.meta.dirname, "drift.ts"), "--rows", driftRows, ...(args.quick ? ["2", "500"] : [])], { stdio: "inherit" });
    for (const row of JSON.parse(readFileSync(driftRows, "utf8")) as Row[]) rows.push({ bench: "drift", ...row });
  } catch (error) {
    process.stderr.write(`drift failed: ${(error as Error).message}\n`);
    process.exitCode = 1;
  } finally {
    rmSync(rowsDir, { recursive: true, force: true });
  }
}

const machine = machineWatch.stop();
const table = new Table({ style: { head: [], border: [], compact: true }, head: ["what", "measured", "figure", "baseline (same run)", "baseline", "ratio", "goal", "met"] });
for (const r of rows) {
  table.push([
    r.what, r.note ? `${r.measured} (${r.note})` : r.measured, figure(r.value, r.unit), r.baselineWhat, figure(r.baseline, r.unit),
    Number.isFinite(r.ratio) ? `${r.ratio.toFixed(r.ratio < 0.1 ? 3 : 2)}x` : "-", r.goal, r.met === undefined ? "" : r.met ? "yes" : "NO",
  ]);
}
console.log(table.toString());
console.log(describeMachine(machine));
writeFileSync(file, `${JSON.stringify({ at: new Date().toISOString(), quick: args.quick, node: process.version, seconds: Math.round((Date.now() - started) / 1000), machine, rows }, null, 2)}\n`);
console.log(`${args.quick ? "quick run (smaller sizes); " : ""}rows also in ${file}; ${Math.round((Date.now() - started) / 1000)} s`);
