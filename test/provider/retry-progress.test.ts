// A request the service asks to be sent again later (503 with Retry-After) shows in the run's progress while it
// waits, with the failure and which retry it is: a long wait is never silent; and then that it got through.
import { afterAll, beforeAll, expect, it } from "vitest";
import { emulatorControl, startEmulator, type RunningEmulator } from "pulumi-audience/emulator";
import { hostedLifecycle, KIND_KEY, readSettings } from "../../provider/runtime/lifecycle/index.ts";

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
});
afterAll(() => emulator?.close());

it("shows each wait before a request is sent again", async () => {
  const shown: string[] = [];
  const settings = readSettings(() => undefined, { AUDIENCE_API_KEY: emulator.apiKey, AUDIENCE_BASE_URL: `${emulator.url}/v1` });
  const { lifecycle } = hostedLifecycle({ settings, checkAccounts: false, progress: (message) => void shown.push(message) });
  const made = await lifecycle.create({ [KIND_KEY]: "cohorts", name: "Patient", streamName: "transactions" });
  await emulatorControl(emulator.url).setFaults([{ method: "GET", path: "/cohorts/*", status: 503, retry_after: 1, count: 1 }]);
  const read = await lifecycle.read!(made.id, { ...made.outs, [KIND_KEY]: "cohorts" });
  expect(read.id).toBe(made.id);
  expect(shown).toEqual([
    expect.stringMatching(new RegExp(`^GET /cohorts/${made.id}: 503 .*; sending it again in 1s \\(retry 1 of 10\\)$`)),
    // Then what replaces it on the resource's line: the request got through.
    `GET /cohorts/${made.id}: answered after 1 retry`,
  ]);
});

it("a request refused for a rate limit says nothing was done, and when to run again", async () => {
  const settings = readSettings(() => undefined, { AUDIENCE_API_KEY: emulator.apiKey, AUDIENCE_BASE_URL: `${emulator.url}/v1` });
  const { lifecycle } = hostedLifecycle({ settings, checkAccounts: false });
  const made = await lifecycle.create({ [KIND_KEY]: "cohorts", name: "Throttled", streamName: "transactions" });
  const olds = { ...made.outs, [KIND_KEY]: "cohorts" };
  await emulatorControl(emulator.url).setFaults([{ method: "PATCH", path: "/cohorts/*", status: 429, retry_after: 120, count: 1 }]);
  const error = (await lifecycle.update!(made.id, olds, { ...olds, name: "Throttled, renamed" }).catch((e: unknown) => e)) as Error;
  expect(error.message).toMatch(new RegExp(`^PATCH /cohorts/${made.id}: 429 [A-Z_]+: .*: the service asks to wait 120s before another request \\(longer than a request waits\\); nothing was changed, and running again after that finishes the step$`));
});
