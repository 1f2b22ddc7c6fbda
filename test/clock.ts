// Time passing without a real wait, for tests whose emulator and provider both run in this process: both read the
// time from Date.now(), so moving it forward moves the service's clock and ours together.
import { onTestFinished, vi } from "vitest";

/** Moves Date.now() `ms` forward for the rest of the current test. */
export function passTime(ms: number): void {
  const before = Date.now;
  const spy = vi.spyOn(Date, "now").mockImplementation(() => before.call(Date) + ms);
  onTestFinished(() => spy.mockRestore());
}
