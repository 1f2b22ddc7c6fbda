// The emulator as the engine's tests drive it: faults in, the request log out, a resource type's collection path.
import type { RunningEmulator } from "pulumi-audience/emulator";
import { families, type FamilyDef } from "pulumi-audience/sdk/contract";

/** Where `landed` sends its request (under /v1, which the log leaves out): no path of the service, so it changes nothing. */
const LANDED_PATH = "/_landed";

/** `emulator` is read at each call: test files start theirs in beforeAll. */
export function emulatorControl(emulator: () => RunningEmulator) {
  async function control(method: string, path: string, body?: unknown): Promise<unknown> {
    const response = await fetch(`${emulator().url}/_emulator${path}`, {
      method, ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    });
    return response.status === 204 ? undefined : response.json();
  }
  /** POSTs the service received (the log holds service requests only), but `landed`'s. */
  const creates = async () => ((await control("GET", "/requests?method=POST")) as { path: string }[]).filter((r) => r.path !== LANDED_PATH).length;
  /**
   * Once every client that sent requests has gone, resolves when what they had in flight has been processed and
   * logged: a POST sent now meets the same injected latency after theirs (timers of one delay fire in the order set),
   * so when it is answered, they have been handled.
   */
  async function landed(): Promise<void> {
    const response = await fetch(`${emulator().url}/v1${LANDED_PATH}`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    await response.arrayBuffer();
  }
  /** The requests the service received since the last take, the log emptied. */
  async function takeRequests(): Promise<{ method: string; path: string }[]> {
    const list = (await control("GET", "/requests")) as { method: string; path: string }[];
    await control("DELETE", "/requests");
    return list;
  }
  return { control, creates, landed, takeRequests };
}

/** Collection path of a resource type such as pulumi-nodejs:dynamic/audience:Scope. */
export function pathOf(type: string): string | undefined {
  const kind = type.split(":").pop();
  return Object.values(families as Record<string, FamilyDef>).find((family) => family.className === kind)?.path;
}
