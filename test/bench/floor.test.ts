// The program floor (bench/floor.ts) answers each face's cohorts with what the engine records for one: the members
// the service answered and the program's inputs, nothing made up.
import { afterAll, beforeAll, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "pulumi-audience/emulator";
import { camelKey } from "pulumi-audience/sdk/contract";
import { recordedOutputs } from "../../bench/floor.ts";
import { PROGRAM, writeProgram } from "../../bench/programs.ts";
import { providerModule } from "../../provider/runtime/resources/shim.ts";

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(async () => emulator?.close());

it("answers a cohort of each face with the outputs its up recorded", { timeout: 60_000 }, async () => {
  const programs = { cohorts: writeProgram("test-floor-cohorts", PROGRAM.cohorts), native: writeProgram("test-floor-native", PROGRAM.native) };
  const recorded = await recordedOutputs(programs, emulator);
  const res = await fetch(`${emulator.url}/v1/cohorts`, { headers: { authorization: `Bearer ${emulator.apiKey}` } });
  const created = ((await res.json()) as Record<string, unknown>[]).filter((doc) => doc["name"] === "cohort 0");
  expect(created).toHaveLength(2);
  // What the service answered for each cohort, in the program's names, and the member only the program gave.
  const members = Object.keys(created[0]!).filter((key) => key !== "id").map(camelKey);
  expect(Object.keys(recorded.native).sort()).toEqual([...members, "deletionMode"].sort());
  expect(Object.keys(recorded.cohorts).sort()).toEqual([...members, "deletionMode", "__kind", "__provider"].sort());
  expect(recorded.cohorts["__provider"]).toBe(providerModule("cohorts"));
  for (const outputs of [recorded.cohorts, recorded.native]) expect(outputs).toMatchObject({ name: "cohort 0", deletionMode: "delete", status: created[0]!["status"] });
});
