// The emulator as the tests drive it: its control plane (pulumi-audience/emulator's client), and what only tests ask
// of it: the creates a run made, and a mark that what clients had in flight has landed.
import { emulatorControl, type RunningEmulator } from "pulumi-audience/emulator";
import { families, type FamilyDef } from "pulumi-audience/sdk/contract";

/** Where `landed` sends its request (under /v1, which the log leaves out): no path of the service, so it changes nothing. */
const LANDED_PATH = "/_landed";

/** `emulator` is read at each call: test files start theirs in beforeAll. */
export function emulatorUnderTest(emulator: () => RunningEmulator) {
  const plane = emulatorControl(() => emulator().url);
  /** POSTs the service received (the log holds service requests only), but `landed`'s. */
  const creates = async () => (await plane.requests("?method=POST")).filter((r) => r.path !== LANDED_PATH).length;
  /**
   * Once every client that sent requests has gone, resolves when what they had in flight has been processed and
   * logged: a POST sent now meets the same injected latency after theirs (timers of one delay fire in the order set),
   * so when it is answered, they have been handled.
   */
  async function landed(): Promise<void> {
    const response = await fetch(`${emulator().url}/v1${LANDED_PATH}`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    await response.arrayBuffer();
  }
  return { ...plane, creates, landed };
}

/** Collection path of a resource type such as pulumi-nodejs:dynamic/audience:Scope. */
export function pathOf(type: string): string | undefined {
  const kind = type.split(":").pop();
  return Object.values(families as Record<string, FamilyDef>).find((family) => family.className === kind)?.path;
}
