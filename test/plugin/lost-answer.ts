// A create whose answer the emulator loses after making it: the plugin finds what it made and warns, which shows
// where its warnings go (the engine's Log, or stderr).
import { emulatorControl, type FaultRuleInput } from "pulumi-audience/emulator";
import type { LoggedMessage } from "./fake-engine.ts";

export const COHORT = "audience:index:Cohort";

/** Sets the injected faults of the emulator at `url`. */
export function faults(url: string, rules: FaultRuleInput[]): Promise<void> {
  return emulatorControl(url).setFaults(rules);
}

/** The fault: the next cohort create is made, its answer lost. */
export const LOST_ANSWER: FaultRuleInput = { method: "POST", path: "/cohorts", reset: "after", count: 1 };
export const cohort = (name: string) => ({ name, streamName: "transactions", minCount: 100 });
/** The plugin's warning about the cohort `name`. */
export const lostAnswerOf = (name: string) => (m: LoggedMessage) => m.message.includes(`Cohort "${name}": the create's answer was lost`);
