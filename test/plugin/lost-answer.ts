// A create whose answer the emulator loses after making it: the plugin finds what it made and warns, which shows
// where its warnings go (the engine's Log, or stderr).
import { expect } from "vitest";
import type { LoggedMessage } from "./fake-engine.ts";

export const COHORT = "audience:index:Cohort";

/** Sets the injected faults of the emulator at `url`. */
export async function faults(url: string, rules: Record<string, unknown>[]): Promise<void> {
  const res = await fetch(`${url}/_emulator/faults`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify({ rules }) });
  expect(res.status).toBeLessThan(300);
}

/** The fault: the next cohort create is made, its answer lost. */
export const LOST_ANSWER = { method: "POST", path: "/cohorts", reset: "after", count: 1 };
export const cohort = (name: string) => ({ name, streamName: "transactions", minCount: 100 });
/** The plugin's warning about the cohort `name`. */
export const lostAnswerOf = (name: string) => (m: LoggedMessage) => m.message.includes(`Cohort "${name}": the create's answer was lost`);
