// The bench's statistics (a goal row of rounds judged by the rounds' own ratios) and its baselines' scripts.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { baselineScript, paired, pairedAtMost, startEntry } from "../../bench/measure.ts";

describe("paired rounds", () => {
  const row = { what: "engine", measured: "no-op up (CPU)", unit: "ms", baselineWhat: "bare program" };

  it("judge the goal by the median of each round's own ratio, not by the ratio of the medians", () => {
    // The medians come from different rounds (1,300 from the third, 1,000 from the second): 1.3x between them, while
    // the rounds' own ratios are 1.11x, 1.40x and 1.18x.
    const paired = pairedAtMost(row, [{ value: 1000, baseline: 900 }, { value: 1400, baseline: 1000 }, { value: 1300, baseline: 1100 }], 1.2);
    expect(paired.value).toBe(1300);
    expect(paired.baseline).toBe(1000);
    expect(paired.ratio).toBeCloseTo(1300 / 1100);
    expect(paired.met).toBe(true);
    expect(paired.goal).toBe("<= 1.2x");
    expect(paired.note).toBe("x: median of the rounds' own ratios (1.11, 1.40, 1.18)");
    expect(pairedAtMost(row, [{ value: 1000, baseline: 900 }, { value: 1400, baseline: 1000 }, { value: 1300, baseline: 1000 }], 1.2).met).toBe(false);
  });

  it("report without a goal the same medians and ratio a goal row judges", () => {
    const pairs = [{ value: 1000, baseline: 900 }, { value: 1400, baseline: 1000 }, { value: 1300, baseline: 1100 }];
    const reported = paired(row, pairs);
    expect(reported).toMatchObject({ value: 1300, baseline: 1000, goal: "report", note: "x: median of the rounds' own ratios (1.11, 1.40, 1.18)" });
    expect(reported.ratio).toBeCloseTo(1300 / 1100);
    expect(reported.met).toBeUndefined();
  });

  it("keep the row's own note first", () => {
    const paired = pairedAtMost({ ...row, note: "0 service requests" }, [{ value: 3, baseline: 2 }], 2);
    expect(paired.note).toBe("0 service requests; x: median of the rounds' own ratios (1.50)");
    expect(paired.met).toBe(true);
  });
});

describe("a baseline's script", () => {
  it("runs as JavaScript with the compile cache on, as bin/audience.js runs", async () => {
    const entry = await baselineScript(join(import.meta.dirname, "fixtures", "baseline-probe.ts"));
    expect(entry).toMatch(/\.mjs$/);
    // Without type stripping: a TypeScript module, the script's or one it imports, would fail to load here. No
    // cache comes from the environment: the entry turns it on, its bundle alone runs without.
    const { NODE_COMPILE_CACHE: _inherited, ...env } = process.env;
    const run = (file: string) => JSON.parse(execFileSync(process.execPath, ["--no-experimental-strip-types", file], { encoding: "utf8", env: { ...env, NODE_OPTIONS: "" } })) as unknown;
    expect(run(entry)).toEqual({ cached: true, part: "bundled" });
    expect(run(entry.replace(/\.mjs$/, ".body.mjs"))).toEqual({ cached: false, part: "bundled" });
  });
});

describe("a baseline's requests", () => {
  // The load's side (the bench's own process and bench/service.ts's load) may; a baseline, measured against the
  // commands, loads only the undici parts the client loads (bench/lean-undici.ts).
  const LOAD_SIDE = new Set(["measure.ts", "service.ts", "emulator.ts"]);

  it("load undici's request parts alone, never its index, in scripts and in the providers' text", () => {
    const dir = join(import.meta.dirname, "..", "..", "bench");
    const scripts = readdirSync(dir).filter((f) => f.endsWith(".ts") && !LOAD_SIDE.has(f));
    const loadingIndex = scripts.filter((f) => {
      const text = readFileSync(join(dir, f), "utf8");
      // A value import, or `import("undici")` and `require("undici")` (quotes escaped in a provider's JSON text).
      return /^import\s+(?!type\b)[^;]*from\s+"undici";/m.test(text) || /\(\s*\\?"undici\\?"\s*\)/.test(text);
    });
    expect(scripts).toEqual(expect.arrayContaining(["requests.ts", "journaled-deletes.ts", "bare-plugin-parts.ts", "programs.ts", "provider.ts"]));
    expect(loadingIndex).toEqual([]);
  });
});

describe("a bench server (bench/service.ts, as startChild runs it)", () => {
  it("runs bundled, without type stripping, and without the bundler it was bundled with", async () => {
    const entry = await baselineScript(join(import.meta.dirname, "..", "..", "bench", "service.ts"));
    const dir = mkdtempSync(join(tmpdir(), "bench-server-"));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, "answers.json"), "{}");
    const server = await startEntry<{ url: string }>(entry, ["bare", join(dir, "answers.json")], { NODE_OPTIONS: "--no-experimental-strip-types" });
    onTestFinished(() => server.stop());
    expect(server.ready).toMatchObject({ url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) });
    // measure.ts, which the server imports, loads rolldown only to bundle: its native binding is tens of MB of RSS.
    expect(readFileSync(`/proc/${server.pid}/maps`, "utf8")).not.toMatch(/rolldown/);
  });
});
