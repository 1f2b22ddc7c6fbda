// The account check a preview makes before the first resource's check rides out what the deploy would: once the
// service has answered (a 503, a connection dropped after the request), it asks again with the deploy's whole retry
// budget, so one faulted check request never fails a run the deploy itself would have finished.
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "pulumi-audience/emulator";
import { hostedLifecycle } from "../../provider/runtime/lifecycle/hosted.ts";
import { providerModule } from "../../provider/runtime/resources/shim.ts";
import { emulatorUnderTest } from "../engine/emulator-control.ts";

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
});
afterAll(async () => emulator?.close());
const { control } = emulatorUnderTest(() => emulator);
beforeEach(() => control("DELETE", "/faults"));

const faults = (rule: Record<string, unknown>) => control("PUT", "/faults", { rules: [rule] });
const keyChecks = async () => ((await control("GET", "/requests?path=/accounts/current")) as unknown[]).length;

/** A cohort's check by a fresh provider, which checks the account first, and the account checks it sent. */
async function checked(maxRetries?: number): Promise<{ failures: { property: string; reason: string }[]; requests: number }> {
  const before = await keyChecks();
  const { lifecycle } = hostedLifecycle({ settings: { default: { apiKey: emulator.apiKey, baseUrl: `${emulator.url}/v1` }, accounts: {}, maxRetries }, checkAccounts: true });
  const { failures } = await lifecycle.check({}, { name: "Checked", __provider: providerModule("cohorts") });
  return { failures, requests: (await keyChecks()) - before };
}

// The client alone gives up after 4 attempts; 5 faults in a row outlast it.
it.each([
  ["a connection dropped after the request", { reset: "after" }],
  ["a 503", { status: 503, retry_after: 0 }],
])("passes after %s 5 times in a row, as the deploy would", { timeout: 30_000 }, async (_, fault) => {
  await faults({ method: "GET", path: "/accounts/current", count: 5, ...fault });
  expect(await checked()).toEqual({ failures: [], requests: 6 });
});

it("gives up with the service's answer once audience:maxRetries is spent", { timeout: 30_000 }, async () => {
  await faults({ method: "GET", path: "/accounts/current", status: 503, retry_after: 0 });
  const { failures, requests } = await checked(1);
  expect(failures).toEqual([{ property: "", code: "UNREACHABLE", reason: expect.stringMatching(/audience:baseUrl .*cannot serve the deploy now: GET \/accounts\/current answered 503 .* after 5 retries/) }]);
  // The client's 4 attempts, then the budget's 2.
  expect(requests).toBe(6);
});
