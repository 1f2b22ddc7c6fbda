// An interrupted `pulumi up`, as a CI timeout or a lost runner leaves it: the chaos program's 40 resources, creates
// slowed so some are in flight, and `pulumi up` killed with SIGKILL at moments spread over the run (the CLI alone, or
// its process group as a job's end kills it; the language host and provider host run in groups of their own), each
// followed by the documented resolution (docs/interrupted-runs.md: `pulumi cancel --yes`, `pulumi stack export |
// audience pending --file - --since <start>`, then the command it prints, run as printed); then one Ctrl-C (SIGINT
// to the process group, as a terminal sends it). After a last `up` the account holds each resource once, every one
// in the state, nothing pending, and a second stack of the same program in the same account (same names, same
// configuration, made before) keeps its resources, none taken.
import { readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "pulumi-audience/emulator";
import { emulatorUnderTest } from "../engine/emulator-control.ts";
import { childrenOf, gone } from "../engine/processes.ts";
import { liveChaos } from "../engine/chaos-world.ts";
import { chaosStack, recorded, resolvePending } from "./chaos-stacks.ts";
import { pulumiCli, skipReason, type PulumiStack, type Run } from "./cli.ts";

const GROUPS = 2; // 40 resources
const PASSWORD = "interrupt-warehouse-password";
/**
 * After how many creates the service has received from this run each run is killed (0: while it starts); every run
 * starts from what the last left, so the kills move through the whole run.
 */
const MOMENTS: { after: number; kill: "group" | "pulumi" }[] = [
  { after: 0, kill: "group" }, { after: 1, kill: "pulumi" }, { after: 2, kill: "group" }, { after: 1, kill: "pulumi" },
  { after: 3, kill: "group" }, { after: 1, kill: "pulumi" }, { after: 2, kill: "group" }, { after: 1, kill: "pulumi" },
  { after: 3, kill: "group" }, { after: 2, kill: "group" }, { after: 1, kill: "pulumi" },
];

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator({ builds: { default: "immediate" }, world: { size: 2000 } });
});
afterAll(() => emulator?.close());
const { control, creates, landed } = emulatorUnderTest(() => emulator);

/** Starts `pulumi up` in a group of its own; answers its pid and its end. */
function startUp(stack: PulumiStack): { pid: Promise<number>; ended: Promise<Run> } {
  let started!: (pid: number) => void;
  const pid = new Promise<number>((resolve) => (started = resolve));
  // Two steps at a time, so that each kill leaves few creates behind and the kills spread over the whole run.
  const ended = stack.pulumi(["up", "--yes", "--skip-preview", "--parallel", "2"], { ownGroup: true, started: (child) => started(child.pid!) });
  return { pid, ended };
}

/** The backend's files with their sizes: what a killed run left of the checkpoint. */
/** A file backend's empty metadata files (`<stack>.json.attrs`): what a kill in the middle of writing one leaves. */
function emptyMetadata(dir: string): string[] {
  return readdirSync(join(dir, ".pulumi", "stacks"), { recursive: true, encoding: "utf8" })
    .map((f) => join(dir, ".pulumi", "stacks", f)).filter((f) => f.endsWith(".attrs") && statSync(f).isFile() && statSync(f).size === 0);
}

let emptiedMetadata = 0;

function backendFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).flatMap((f) => {
    const stats = statSync(join(dir, f));
    return stats.isFile() ? [`${f} (${stats.size} bytes)`] : [];
  });
}

/** A process's group and command line, from /proc. */
function describeProcess(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const pgrp = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2];
    return `${pid} (group ${pgrp}): ${readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").slice(0, 200)}`;
  } catch {
    return `${pid}: gone`;
  }
}

/** Every process of `pid`'s group still alive, read from /proc. */
function groupOf(pid: number): number[] {
  const all: number[] = [];
  const walk = (p: number) => childrenOf(p).forEach((c) => (all.push(c), walk(c)));
  walk(pid);
  return all;
}

describe(`an interrupted pulumi up${skipReason()}`, { timeout: 900_000 }, () => {
  it.skipIf(!pulumiCli().dir)(`killed at ${MOMENTS.length} moments, then Ctrl-C, resolved as the README says: no duplicate, no orphan, no other stack's resource taken`, async () => {
    const apiKey = emulator.apiKey;
    const other = await chaosStack(emulator, { apiKey, groups: GROUPS, password: PASSWORD, stack: "other" });
    await other.must(["up", "--yes", "--skip-preview"]);
    const others = (await recorded(other)).ids.sort();
    expect(others).toHaveLength(GROUPS * 20);
    // Each resolution looks from a second before its run began, less the 5 s the service's clock may lag ours: the
    // other stack's creates must lie before that, or they are candidates too and none is taken (as documented).
    await sleep(7_000);

    const stack = await chaosStack(emulator, { apiKey, groups: GROUPS, password: PASSWORD });
    // Slow creates, so each kill finds some in flight.
    await control("PUT", "/faults", { rules: [{ method: "POST", path: "/**", latency_ms: 400 }] });
    const base = await creates();
    const results: string[] = [];
    let commands = 0;
    let kills = 0;
    const leftBehind: string[] = [];
    for (const moment of MOMENTS) {
      const since = new Date(Date.now() - 1_000);
      const runBase = await creates();
      const { pid: started, ended } = startUp(stack);
      const pid = await started;
      let finished = false;
      void ended.then(() => (finished = true));
      if (moment.after === 0) await sleep(1_500);
      while (!finished && (await creates()) - runBase < moment.after) await sleep(25);
      if (finished) {
        const run = await ended;
        expect(run.code, run.output).toBe(0);
        results.push(`${moment.after}: finished first`);
        continue;
      }
      kills++;
      const group = groupOf(pid);
      if (results.length < 2) console.info(`at ${moment.after}: ${group.map(describeProcess).join("\n")}`);
      process.kill(moment.kill === "group" ? -pid : pid, "SIGKILL");
      await ended;
      // What the CLI started and was not killed with it goes once it finds the CLI gone; else a job's end kills it.
      const left = await gone(group, 10_000);
      for (const p of left) leftBehind.push(describeProcess(p));
      for (const p of left) process.kill(p, "SIGKILL");
      await landed();
      // A killed run keeps the backend's lock: the CLI names `pulumi cancel` to remove it. A kill while the file
      // backend wrote a checkpoint's metadata leaves it empty, and every command then fails with `failed to load
      // checkpoint: EOF` until it is removed (docs/interrupted-runs.md).
      let cancelled = await stack.pulumi(["cancel", "--yes"]);
      if (cancelled.code !== 0 && /failed to load checkpoint: EOF/.test(cancelled.output)) {
        const emptied = emptyMetadata(stack.backend);
        expect(emptied, cancelled.output).not.toEqual([]);
        for (const file of emptied) rmSync(file);
        emptiedMetadata += emptied.length;
        cancelled = await stack.pulumi(["cancel", "--yes"]);
      }
      expect(cancelled.code, `${cancelled.output}\nbackend: ${backendFiles(stack.backend).join(", ")}`).toBe(0);
      const step = await resolvePending(stack, since);
      expect(step.code, step.printed).toBe(0);
      if (step.resolved) {
        commands++;
        expect(step.resolved.code, `${step.command}\n${step.resolved.output}`).toBe(0);
      }
      const { pending } = await recorded(stack);
      expect(pending, step.printed).toBe(0);
      results.push(`${moment.after} (${moment.kill}): ${(await creates()) - base} creates sent, ${step.printed.match(/^pending create/gm)?.length ?? 0} pending`
        + `${left.length ? `, ${left.length} processes left behind` : ""}`);
    }

    // The run after the kills finishes what they left.
    const after = await stack.must(["up", "--yes", "--skip-preview"]);
    results.push(`then up: ${/\d+ created/.exec(after.output)?.[0] ?? "0 created"}`);

    // Ctrl-C: SIGINT to the CLI's process group, as a terminal sends it, while creates are in flight; the CLI stops
    // cleanly. The leaves of the last group are destroyed first, so the run has creates to make.
    const leaves = (await stack.exported()).deployment.resources!.filter((r) => /::(hook|csv|table)-1(-\d)?$/.test(r.urn)).map((r) => r.urn);
    expect(leaves).toHaveLength(6);
    await stack.must(["destroy", "--yes", "--skip-preview", ...leaves.flatMap((urn) => ["--target", urn])]);
    const at = (await creates()) - base;
    const since = new Date(Date.now() - 1_000);
    await control("PUT", "/faults", { rules: [{ method: "POST", path: "/**", latency_ms: 1_500 }] });
    const interrupted = startUp(stack);
    const pid = await interrupted.pid;
    while ((await creates()) - base <= at) await sleep(25);
    process.kill(-pid, "SIGINT");
    const stopped = await interrupted.ended;
    await control("DELETE", "/faults");
    const step = await resolvePending(stack, since);
    expect(step.code, step.printed).toBe(0);
    if (step.resolved) expect(step.resolved.code, step.resolved.output).toBe(0);
    results.push(`SIGINT: exit ${stopped.code ?? stopped.signal}, ${(await creates()) - base - at} creates sent, ${step.printed.trim()}`);

    const last = await stack.must(["up", "--yes", "--skip-preview"]);
    await stack.must(["preview", "--expect-no-changes"]);
    const mine = await recorded(stack);
    const live = await liveChaos(emulator, apiKey);
    const keys = live.map((r) => r.key);
    // Each name twice: this stack's and the other's.
    const counts = new Map<string, number>();
    for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
    const duplicates = [...counts.values()].reduce((n, c) => n + Math.max(0, c - 2), 0);
    const orphans = live.filter((r) => !mine.ids.includes(r.id) && !others.includes(r.id)).length;
    const taken = mine.ids.filter((id) => others.includes(id)).length;
    console.info(`left behind: ${leftBehind.join("\n")}`);
    console.info(`interrupt: ${kills} kills (creates sent when killed, pending creates found) ${results.join("; ")}; `
      + `${commands} printed commands run; last up: ${/\d+ created/.exec(last.output)?.[0] ?? "0 created"}; `
      + `${live.length} live, ${duplicates} duplicates, ${orphans} orphans, ${taken} of the other stack's taken; `
      + `${emptiedMetadata} empty checkpoint metadata files removed`);
    expect(kills).toBeGreaterThanOrEqual(10);
    expect(stopped.code).not.toBe(0);
    expect({ live: live.length, duplicates, orphans, taken, pending: mine.pending }).toEqual({ live: 2 * GROUPS * 20, duplicates: 0, orphans: 0, taken: 0, pending: 0 });
    expect(mine.ids).toHaveLength(GROUPS * 20);
    expect((await recorded(other)).ids.sort()).toEqual(others);
  });
});
