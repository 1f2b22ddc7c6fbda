// The stack lock: two runs never hold it at once, however their steps interleave; a run that finds the lock always
// finds its owner in it; a lock is taken over only when its owner is provably gone (a process of this host that no
// longer runs), and a taking-over that races another one still leaves a single owner.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { afterAll, describe, expect, it } from "vitest";
import { lockStack } from "../../provider/engine/lock.ts";
import { StateError } from "../../provider/engine/state-file.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const dir = mkdtempSync(join(tmpdir(), "engine-lock-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ROUNDS = 200;

/** Takes the lock `contenders` times at once; answers how many got it (each releases after all have tried). */
async function contend(statePath: string, contenders: number): Promise<{ holders: number; refusals: string[] }> {
  const results = await Promise.allSettled(Array.from({ length: contenders }, () => lockStack(statePath)));
  const held = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
  const refusals = results.flatMap((r) => (r.status === "rejected" ? [String((r.reason as Error).message)] : []));
  for (const release of held) await release();
  return { holders: held.length, refusals };
}

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((resolve) => child.once("exit", resolve));
  return child.pid!;
}

describe("the stack lock", () => {
  it(`is held by one run at a time, and never seen empty, over ${ROUNDS} rounds of runs taking it at once`, { timeout: 120_000 }, async () => {
    const statePath = join(dir, "race.json");
    const lock = `${statePath}.lock`;
    // A reader in another thread looks at the lock file as often as it can while the rounds run.
    const stop = new Int32Array(new SharedArrayBuffer(4));
    const reader = new Worker(`
      const { readFileSync } = require("node:fs");
      const { parentPort, workerData } = require("node:worker_threads");
      let reads = 0, empty = 0;
      while (Atomics.load(workerData.stop, 0) === 0) {
        try { if (readFileSync(workerData.lock, "utf8") === "") empty++; reads++; } catch {}
      }
      parentPort.postMessage({ reads, empty });
    `, { eval: true, workerData: { lock, stop } });
    const seen = new Promise<{ reads: number; empty: number }>((resolve) => reader.once("message", resolve));
    const rounds: number[] = [];
    for (let i = 0; i < ROUNDS; i++) rounds.push((await contend(statePath, 3)).holders);
    Atomics.store(stop, 0, 1);
    const { reads, empty } = await seen;
    await reader.terminate();
    console.info(`lock race: ${ROUNDS} rounds of 3 runs at once; holders per round ${[...new Set(rounds)].join("/")}; the reader saw the lock ${reads} times, empty ${empty} times`);
    expect(rounds.every((n) => n === 1)).toBe(true);
    expect(reads).toBeGreaterThan(0);
    expect(empty).toBe(0);
    expect(existsSync(lock)).toBe(false);
  });

  it("names its owner while held, and a run refused leaves it in place", async () => {
    const statePath = join(dir, "held.json");
    const release = await lockStack(statePath);
    const owner = JSON.parse(readFileSync(`${statePath}.lock`, "utf8")) as { pid: number; host: string };
    expect(owner).toMatchObject({ pid: process.pid, host: hostname() });
    await expect(lockStack(statePath)).rejects.toThrow(`the stack is being changed by process ${process.pid} on ${hostname()}`);
    expect(existsSync(`${statePath}.lock`)).toBe(true);
    await release();
    expect(existsSync(`${statePath}.lock`)).toBe(false);
  });

  it("is taken over from a process of this host that is gone, and only then", async () => {
    const statePath = join(dir, "stale.json");
    const lock = `${statePath}.lock`;
    const dead = await deadPid();
    const refusedFor: [string, string][] = [
      ["an empty lock", ""],
      ["a lock that is no JSON", "12345"],
      ["a gone process of another host", JSON.stringify({ pid: dead, host: `not-${hostname()}`, nonce: "a" })],
      ["a running process", JSON.stringify({ pid: process.pid, host: hostname(), nonce: "b" })],
    ];
    for (const [what, text] of refusedFor) {
      writeFileSync(lock, text);
      const error = await lockStack(statePath).then(() => undefined, (e: unknown) => e);
      expect(error, what).toBeInstanceOf(StateError);
      expect(readFileSync(lock, "utf8"), what).toBe(text);
    }
    writeFileSync(lock, JSON.stringify({ pid: dead, host: hostname(), nonce: "c" }));
    const release = await lockStack(statePath);
    expect(JSON.parse(readFileSync(lock, "utf8"))).toMatchObject({ pid: process.pid });
    await release();
  });

  it("taken over by several runs at once from a gone owner, has one owner each time", { timeout: 60_000 }, async () => {
    const statePath = join(dir, "takeover.json");
    const dead = await deadPid();
    const holders: number[] = [];
    for (let i = 0; i < 50; i++) {
      writeFileSync(`${statePath}.lock`, JSON.stringify({ pid: dead, host: hostname(), nonce: `stale-${i}` }));
      holders.push((await contend(statePath, 4)).holders);
    }
    expect(holders.every((n) => n === 1)).toBe(true);
  });

  it("held by a process killed with SIGKILL, is refused while it runs and taken over once it is gone", { timeout: 60_000 }, async () => {
    const statePath = join(dir, "killed.json");
    const script = `import(${JSON.stringify(join(ROOT, "provider", "engine", "lock.ts"))}).then(async ({ lockStack }) => { await lockStack(${JSON.stringify(statePath)}); console.log("locked"); setInterval(() => {}, 1000); });`;
    const child = spawn(process.execPath, ["--conditions=source", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
    await new Promise<void>((resolve) => child.stdout.on("data", (d: Buffer) => d.toString().includes("locked") && resolve()));
    await expect(lockStack(statePath)).rejects.toThrow(`process ${child.pid} on ${hostname()}`);
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));
    const release = await lockStack(statePath);
    await release();
  });
});
