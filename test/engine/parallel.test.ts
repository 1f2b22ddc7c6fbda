// `--parallel N` bounds every kind of step: at most N creates (and N deletes) reach the service at once. The chaos
// program runs in process.
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { emulatorControl, startEmulator, type RunningEmulator } from "pulumi-audience/emulator";
import { limiter } from "../../provider/engine/deployment.ts";
import { defaultParallel, type Operation } from "../../provider/engine/index.ts";
import { runProgram } from "../../provider/cli/program.ts";
import { chaosProgram } from "./chaos-program.ts";
import { inProcessRuntime } from "./in-process-runtime.ts";

const FIXTURE = join(import.meta.dirname, "fixtures", "chaos");
const stateDir = mkdtempSync(join(tmpdir(), "parallel-"));
let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator({ builds: { default: "immediate" }, world: { size: 2000 } });
});
afterAll(async () => {
  await emulator?.close();
  rmSync(stateDir, { recursive: true, force: true });
});

const { control, requests } = emulatorControl(() => emulator.url);

/** The most requests of this method the service was handling at one moment, from the request log. */
async function mostAtOnce(method: string): Promise<number> {
  const log = await requests(`?method=${method}`);
  const edges = log.flatMap((r) => {
    const end = Date.parse(r.at);
    return [{ t: end - r.duration_ms, d: 1 }, { t: end, d: -1 }];
  }).sort((a, b) => a.t - b.t || a.d - b.d);
  let now = 0;
  let most = 0;
  for (const e of edges) most = Math.max(most, (now += e.d));
  return most;
}

const run = (operation: Operation) => runProgram({
  cwd: FIXTURE, runtime: inProcessRuntime(chaosProgram), operation, passphrase: "parallel passphrase", stateDir, parallel: 2,
  env: { AUDIENCE_BASE_URL: `${emulator.url}/v1`, AUDIENCE_API_KEY: emulator.apiKey },
  config: { groups: "1" }, secrets: { warehousePassword: "parallel-password" },
});

it("--parallel 2 keeps creates and deletes to two at a time", { timeout: 180_000 }, async () => {
  // Each write takes a while, so writes that may overlap do.
  await control("PUT", "/faults", { rules: [{ method: "POST", path: "/**", latency_ms: 150 }, { method: "DELETE", path: "/**", latency_ms: 150 }] });
  const up = await run("up");
  expect(up.ok, up.error).toBe(true);
  expect(up.changes.create).toBe(21);
  expect(await mostAtOnce("POST")).toBe(2);
  const destroy = await run("destroy");
  expect(destroy.ok, destroy.error).toBe(true);
  expect(await mostAtOnce("DELETE")).toBe(2);
});

it("the slots start waiting steps in the order they arrived, never more than the limit at once, however many wait", async () => {
  // More wait at once than the 1,024 handed-out entries the queue keeps before it drops them.
  const inSlot = limiter(3);
  const started: number[] = [];
  let active = 0;
  let most = 0;
  await Promise.all(Array.from({ length: 5000 }, (_, i) => inSlot(async () => {
    started.push(i);
    most = Math.max(most, ++active);
    await new Promise((resolve) => setImmediate(resolve));
    active--;
  })));
  expect(started).toEqual(Array.from({ length: 5000 }, (_, i) => i));
  expect(most).toBe(3);
});

it("a step hands its slot on when it releases it (its calls over, its record still being written), and only once", async () => {
  const inSlot = limiter(1);
  const order: string[] = [];
  const gate = () => {
    let open!: () => void;
    return { opened: new Promise<void>((resolve) => (open = resolve)), open: () => open() };
  };
  const firstRecorded = gate();
  const secondDone = gate();
  const first = inSlot(async (release) => {
    order.push("first acts");
    release();
    release();
    await firstRecorded.opened;
    order.push("first recorded");
  });
  const second = inSlot(async () => {
    order.push("second acts");
    await secondDone.opened;
  });
  const third = inSlot(async () => {
    order.push("third acts");
  });
  await new Promise((resolve) => setImmediate(resolve));
  // The first released its slot (twice): the second has it, the third still waits.
  expect(order).toEqual(["first acts", "second acts"]);
  secondDone.open();
  await Promise.all([second, third]);
  expect(order).toEqual(["first acts", "second acts", "third acts"]);
  firstRecorded.open();
  await first;
  expect(order).toEqual(["first acts", "second acts", "third acts", "first recorded"]);
});

it("a slot handed to a waiting step is its own: a step arriving before the waiter resumes waits its turn", async () => {
  const inSlot = limiter(1);
  let active = 0;
  let most = 0;
  const order: string[] = [];
  const step = (name: string) => inSlot(async () => {
    order.push(name);
    most = Math.max(most, ++active);
    await new Promise((resolve) => setImmediate(resolve));
    active--;
  });
  let third: Promise<void> | undefined;
  const first = inSlot(async (release) => {
    order.push("first");
    await new Promise((resolve) => setImmediate(resolve)); // the second is waiting by now
    release(); // hands the slot to the second, which resumes only on a later tick
    third = step("third (arrived after the hand-off)");
  });
  const second = step("second (waiting)");
  await first;
  await Promise.all([second, third]);
  expect(order).toEqual(["first", "second (waiting)", "third (arrived after the hand-off)"]);
  expect(most).toBe(1);
});

it("defaults as `pulumi up` does without --parallel: PULUMI_PARALLEL when it is a whole number from 1, else four per CPU", () => {
  expect(defaultParallel({ PULUMI_PARALLEL: "3" })).toBe(3);
  expect(defaultParallel({ PULUMI_PARALLEL: "64" })).toBe(64);
  for (const env of [{}, { PULUMI_PARALLEL: "" }, { PULUMI_PARALLEL: "0" }, { PULUMI_PARALLEL: "-2" }, { PULUMI_PARALLEL: "2.5" }, { PULUMI_PARALLEL: "many" }]) {
    expect(defaultParallel(env), JSON.stringify(env)).toBe(4 * availableParallelism());
  }
});
