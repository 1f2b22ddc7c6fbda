// The emulator's control API (`/_emulator`) as the engine's tests drive it: faults in, the request log out.
import type { RunningEmulator } from "pulumi-audience/emulator";

/** `emulator` is read at each call: test files start theirs in beforeAll. */
export function emulatorControl(emulator: () => RunningEmulator) {
  async function control(method: string, path: string, body?: unknown): Promise<unknown> {
    const response = await fetch(`${emulator().url}/_emulator${path}`, {
      method, ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    });
    return response.status === 204 ? undefined : response.json();
  }
  /** POSTs the service received (the log holds service requests only). */
  const creates = async () => ((await control("GET", "/requests?method=POST")) as unknown[]).length;
  /** The requests the service received since the last take, the log emptied. */
  async function takeRequests(): Promise<{ method: string; path: string }[]> {
    const list = (await control("GET", "/requests")) as { method: string; path: string }[];
    await control("DELETE", "/requests");
    return list;
  }
  return { control, creates, takeRequests };
}
