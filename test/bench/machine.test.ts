// The bench's record of the machine a run measured on (bench/machine.ts): the CPU shares read from /proc/stat, and
// the load and speed taken through a run.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { describeMachine, parseProcStat, startMachineWatch } from "../../bench/machine.ts";

describe("parseProcStat", () => {
  it("reads all cores' ticks from the cpu line: idle with iowait, steal apart, guest time not counted twice", () => {
    const text = "cpu  100 5 20 300 10 1 2 40 7 3\ncpu0 50 2 10 150 5 0 1 20 3 1\nintr 1 2 3\n";
    expect(parseProcStat(text)).toEqual({ total: 100 + 5 + 20 + 300 + 10 + 1 + 2 + 40, idle: 310, steal: 40 });
  });

  it("answers nothing for a text without a whole cpu line", () => {
    expect(parseProcStat("intr 1 2 3\n")).toBeUndefined();
    expect(parseProcStat("cpu  1 2 3\n")).toBeUndefined();
    expect(parseProcStat("cpu  1 2 3 x 5 6 7 8\n")).toBeUndefined();
  });
});

it("records the load, the CPU shares and the speed at both ends of a run", { timeout: 30_000 }, () => {
  const watch = startMachineWatch({ everyMs: 50, rounds: 1 });
  // Work for the record to see: a second process busy for a while.
  spawnSync(process.execPath, ["-e", "const end = Date.now() + 400; while (Date.now() < end);"]);
  const m = watch.stop();
  expect(m.cpus).toBeGreaterThan(0);
  expect(m.load.min).toBeLessThanOrEqual(m.load.max);
  for (const s of [m.atStart, m.atEnd]) {
    expect(s.nodeStartMs).toBeGreaterThan(0);
    expect(s.loopMs).toBeGreaterThan(0);
  }
  if (existsSync("/proc/stat")) {
    expect(m.busy).toBeGreaterThan(0);
    expect(m.steal).toBeGreaterThanOrEqual(0);
    expect(m.busy! + m.steal!).toBeLessThanOrEqual(1);
  }
  const line = describeMachine(m);
  expect(line).toContain(`${m.cpus} CPUs`);
  expect(line).toContain(`load average ${m.load.min.toFixed(1)}-${m.load.max.toFixed(1)}`);
  expect(line).toContain(`\`node -e 0\` ${m.atStart.nodeStartMs.toFixed(1)} ms at the start`);
  if (m.busy !== undefined) expect(line).toContain(`CPU busy ${Math.round(m.busy * 100)}%`);
});
