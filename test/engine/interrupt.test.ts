// Runs that do not finish: an `audience run up` stopped midway by SIGTERM (a clean stop) or SIGKILL (no chance to
// clean up), then run again: the processes it started are gone, no create is sent after the stop, and the next up
// makes nothing twice. Also a create left with its outcome unknown, resolved by the next up, and a destroy that a
// resource made outside the stack blocks.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "pulumi-audience/emulator";
import { emulatorUnderTest } from "./emulator-control.ts";
import { runProgram } from "../../provider/cli/program.ts";
import { BUILT_AUDIENCE, userEnv } from "../cli/helpers.ts";
import { programDir } from "./installed.ts";
import { childrenOf, gone } from "./processes.ts";
import { GIVES_UP_SOON } from "./native-programs.ts";

const FIXTURE = await programDir(join(import.meta.dirname, "fixtures", "chaos"));
const PASSPHRASE = "interrupt passphrase";
const PASSWORD = "interrupt-warehouse-password";
const GROUPS = 2; // 40 resources

let emulator: RunningEmulator;
const work = mkdtempSync(join(tmpdir(), "interrupt-"));
beforeAll(async () => {
  emulator = await startEmulator({ builds: { default: "immediate" }, world: { size: 2000 } });
});
afterAll(async () => {
  await emulator?.close();
  rmSync(work, { recursive: true, force: true });
});

const { control, creates, landed } = emulatorUnderTest(() => emulator);


/** The program's resources the account holds: the names (or urls) that say which they are. */
async function live(): Promise<string[]> {
  const keys: string[] = [];
  for (const family of ["cohorts", "outcomes", "persona_sets", "scopes", "connections", "targets", "webhook_endpoints"]) {
    const response = await fetch(`${emulator.url}/v1/${family}`, { headers: { authorization: `Bearer ${emulator.apiKey}` } });
    for (const r of (await response.json()) as { name?: string; url?: string }[]) {
      const key = `${family}:${r.name ?? r.url ?? ""}`;
      if (/Chaos |\/chaos\//.test(key)) keys.push(key);
    }
  }
  return keys;
}

describe.each(["SIGTERM", "SIGKILL"] as const)("an up stopped by %s", { timeout: 240_000 }, (signal) => {
  const stateDir = join(work, signal);

  it("leaves no process of its own behind, sends nothing more, and the next up finishes without duplicates", async () => {
    await control("POST", "/reset");
    // Slow creates, so the stop comes while some are in flight.
    await control("PUT", "/faults", { rules: [{ method: "POST", path: "/**", latency_ms: 400 }] });
    const child = spawn(process.execPath, [
      BUILT_AUDIENCE, "run", "up", "--yes", "--cwd", FIXTURE, "--state-dir", stateDir, "-c", `groups=${GROUPS}`, "--secret", `warehousePassword=${PASSWORD}`,
    ], { env: userEnv({ AUDIENCE_BASE_URL: `${emulator.url}/v1`, AUDIENCE_API_KEY: emulator.apiKey, PULUMI_CONFIG_PASSPHRASE: PASSPHRASE }), stdio: "ignore" });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    for (let waited = 0; (await creates()) < 6; waited += 100) {
      if (waited > 60_000) throw new Error("the run never created anything");
      await sleep(100);
    }
    const started = childrenOf(child.pid!);
    expect(started.length).toBeGreaterThanOrEqual(1); // the program (the engine serves this package's resources itself)
    process.kill(child.pid!, signal);
    const code = await exited;
    if (signal === "SIGTERM") expect(code).toBe(143);
    expect(await gone(started)).toEqual([]);

    // Whatever was in flight has landed or died: no create comes after.
    await landed();
    const sent = await creates();
    await sleep(1_000);
    expect(await creates()).toBe(sent);
    expect(sent).toBeLessThan(GROUPS * 20);
    if (signal === "SIGTERM") {
      expect(existsSync(join(stateDir, "dev.json.lock"))).toBe(false);
      expect(readdirSync(stateDir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
    }

    await control("DELETE", "/faults");
    const again = await runProgram({
      cwd: FIXTURE, operation: "up", passphrase: PASSPHRASE, stateDir, env: { AUDIENCE_BASE_URL: `${emulator.url}/v1`, AUDIENCE_API_KEY: emulator.apiKey },
      config: { groups: String(GROUPS) }, secrets: { warehousePassword: PASSWORD },
    });
    expect(again.ok, again.error).toBe(true);
    const keys = await live();
    expect(keys).toHaveLength(GROUPS * 20);
    expect(new Set(keys).size).toBe(keys.length);
  });
});

it("destroy deletes what it can, names what blocks the rest, and takes a resource already gone as deleted", { timeout: 120_000 }, async () => {
  const stateDir = join(work, "SIGKILL"); // the stack the last test converged
  const api = (method: string, path: string, body?: unknown) => fetch(`${emulator.url}/v1${path}`, {
    method, headers: { authorization: `Bearer ${emulator.apiKey}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const cohorts = (await (await api("GET", "/cohorts")).json()) as { id: string; name: string }[];
  const held = cohorts.find((c) => c.name === "Chaos cohort 0.0")!;
  const made = await api("POST", "/outcomes", { name: "Made by hand", attainment_cohort_id: held.id });
  expect(made.status).toBe(201);
  const blocker = (await made.json()) as { id: string };
  const hooks = (await (await api("GET", "/webhook_endpoints")).json()) as { id: string; url: string }[];
  expect((await api("DELETE", `/webhook_endpoints/${hooks.find((h) => h.url.endsWith("/chaos/0/0"))!.id}`)).status).toBe(204);

  const r = await runProgram({
    cwd: FIXTURE, operation: "destroy", passphrase: PASSPHRASE, stateDir, env: { AUDIENCE_BASE_URL: `${emulator.url}/v1`, AUDIENCE_API_KEY: emulator.apiKey },
    config: { groups: String(GROUPS) }, secrets: { warehousePassword: PASSWORD },
  });
  expect(r.ok).toBe(false);
  const failed = r.steps.filter((s) => s.phase === "failed");
  expect(failed.map((s) => s.name)).toEqual(["cohort-0-0"]);
  expect(failed[0]?.error).toContain(`outcome Made by hand (${blocker.id}) depends on it`);
  expect(failed[0]?.error).toMatch(/\(waited 20s for them to go: nothing in this run deletes them, so another stack or program manages them, or they were made by hand; delete or change them there first. An archived one stays until it is deleted in the service: then archive this resource instead, deletionMode "archive"\)$/);
  expect(r.steps.some((s) => s.name === "hook-0-0" && s.op === "delete" && s.phase === "done")).toBe(true);
  expect(await live()).toEqual(["cohorts:Chaos cohort 0.0"]);
});

// This engine's own recovery: the Pulumi CLI ends a failed create's pending operation, whatever the failure.
it("a create that ends with its outcome unknown stays pending, and the next up records what it made instead of creating it again", { timeout: 120_000 }, async () => {
  await control("POST", "/reset");
  const stateDir = join(work, "unknown");
  const up = () => runProgram({
    cwd: FIXTURE, operation: "up", passphrase: PASSPHRASE, stateDir, env: { AUDIENCE_BASE_URL: `${emulator.url}/v1`, AUDIENCE_API_KEY: emulator.apiKey, ...GIVES_UP_SOON },
    config: { groups: "1" }, secrets: { warehousePassword: PASSWORD },
  });
  // Every cohort create answers 503, so each gives up with its outcome unknown.
  await control("PUT", "/faults", { rules: [{ method: "POST", path: "/cohorts", status: 503 }] });
  const first = await up();
  await control("DELETE", "/faults");
  expect(first.ok).toBe(false);
  const pending = (JSON.parse(readFileSync(join(stateDir, "dev.json"), "utf8")) as { deployment: { pending_operations?: { type: string; startedAt?: number; resource: { urn: string } }[] } }).deployment.pending_operations ?? [];
  expect(pending.filter((op) => op.type === "creating" && op.startedAt !== undefined).map((op) => op.resource.urn.split("::").pop()).sort())
    .toEqual(["cohort-0-0", "cohort-0-1", "cohort-0-2", "cohort-0-3"]);
  expect(first.diagnostics.some((d) => d.severity === "warning" && d.message.includes("cohort-0-0") && d.message.includes("the next up looks"))).toBe(true);

  // One of them did land after all (a late answer the client never saw).
  const landed = await fetch(`${emulator.url}/v1/cohorts`, {
    method: "POST", headers: { authorization: `Bearer ${emulator.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Chaos cohort 0.1", stream_name: "transactions", min_count: 2 }),
  });
  const { id } = (await landed.json()) as { id: string };
  const second = await up();
  expect(second.ok, second.error).toBe(true);
  const keys = await live();
  expect(keys).toHaveLength(20);
  expect(new Set(keys).size).toBe(20);
  expect(second.diagnostics.some((d) => d.severity === "warning" && d.message.includes(`${id}, made by it, is recorded as the created resource`))).toBe(true);
  const final = JSON.parse(readFileSync(join(stateDir, "dev.json"), "utf8")) as { deployment: { pending_operations?: unknown[]; resources: { id?: string }[] } };
  expect(final.deployment.pending_operations).toBeUndefined();
  expect(final.deployment.resources.some((r) => r.id === id)).toBe(true);
});
