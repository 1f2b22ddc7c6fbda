// The chaos program (fixtures/chaos: 20 linked resources a group) and what an account holds of it, for the runs that
// kill, fault or race it: through the local engine here, through the real CLI in test/pulumi.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { startEmulator, type RunningEmulator } from "pulumi-audience/emulator";
import { emulatorUnderTest } from "./emulator-control.ts";

export const CHAOS_PROGRAM = join(import.meta.dirname, "fixtures", "chaos");
const FAMILIES = ["cohorts", "outcomes", "persona_sets", "scopes", "connections", "targets", "webhook_endpoints"];

export interface LiveResource {
  id: string;
  /** The family and the name (or url) that says which declared resource it is. */
  key: string;
}

/** The chaos program's resources the account of `apiKey` holds, at the emulator's `url`. */
export async function liveChaos(emulator: { url: string }, apiKey: string): Promise<LiveResource[]> {
  const found: LiveResource[] = [];
  for (const family of FAMILIES) {
    const response = await fetch(`${emulator.url}/v1/${family}`, { headers: { authorization: `Bearer ${apiKey}` } });
    for (const r of (await response.json()) as { id: string; name?: string; url?: string }[]) {
      const key = `${family}:${r.name ?? r.url ?? ""}`;
      if (/Chaos |\/chaos\//.test(key)) found.push({ id: r.id, key });
    }
  }
  return found;
}

export interface ExportedResource {
  type: string;
  custom?: boolean;
  id?: string;
}

/** The ids of the service's resources a state records (its providers aside). */
export function recordedIds(resources: readonly ExportedResource[]): string[] {
  return resources.filter((r) => r.custom && r.id && !r.type.startsWith("pulumi:providers:")).map((r) => r.id!);
}

/** How the account and a state agree: resources made twice, live but not recorded, recorded but not live. */
export function agreement(live: readonly LiveResource[], recorded: readonly string[]): { live: number; duplicates: number; orphans: number; notLive: number } {
  const ids = new Set(recorded);
  const keys = live.map((r) => r.key);
  return {
    live: live.length,
    duplicates: keys.length - new Set(keys).size,
    orphans: live.filter((r) => !ids.has(r.id)).length,
    notLive: [...ids].filter((id) => !live.some((r) => r.id === id)).length,
  };
}

/** For a test file: an emulator that builds at once over a world of 2,000 people, and a work folder; both gone after. */
export function chaosWorld(prefix: string) {
  let emulator: RunningEmulator | undefined;
  const work = mkdtempSync(join(tmpdir(), `${prefix}-`));
  beforeAll(async () => {
    emulator = await startEmulator({ builds: { default: "immediate" }, world: { size: 2000 } });
  });
  afterAll(async () => {
    await emulator?.close();
    rmSync(work, { recursive: true, force: true });
  });
  const running = () => {
    if (!emulator) throw new Error("the emulator is not started yet");
    return emulator;
  };
  return { emulator: running, work, ...emulatorUnderTest(running) };
}
