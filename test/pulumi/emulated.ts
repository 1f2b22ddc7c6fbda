// One emulator for a test file's runs of `pulumi` (started in beforeAll), with fresh accounts and the writes it
// received.
import { afterAll, beforeAll, expect } from "vitest";
import { startEmulator, type EmulatorOptions, type RunningEmulator } from "pulumi-audience/emulator";
import { emulatorUnderTest } from "../engine/emulator-control.ts";

/** The hosted-CSV target the other-language tests make outside Pulumi and then `pulumi import`. */
export const legacyTarget = (scopeId: string) => ({ name: "Legacy CSV", scope_id: scopeId, representation: { mode: "identified" }, options: { type: "hosted_csv" } });

/** The writes among logged requests, as `METHOD /path`, in the order received. */
export const writes = (list: { method: string; path: string }[]) => list.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);

/** Writes as `writes` gives them, each path's trailing id as `<id>`: what a write did, whichever resource it was. */
export const idsHidden = (list: readonly string[]) => list.map((w) => w.replace(/\/[0-9a-f-]{36}$/, "/<id>"));

export function emulatedService(options: EmulatorOptions = { port: 0 }) {
  let emulator: RunningEmulator | undefined;
  beforeAll(async () => {
    emulator = await startEmulator(options);
  });
  afterAll(() => emulator?.close());
  const running = () => {
    if (!emulator) throw new Error("the emulator is not started yet");
    return emulator;
  };
  const { takeRequests, createAccount } = emulatorUnderTest(running);
  return {
    /** The service's base URL, as AUDIENCE_BASE_URL takes it. */
    baseUrl: () => `${running().url}/v1`,
    /** A new account; its API key. */
    async createAccount(name: string): Promise<string> {
      return (await createAccount({ name, forecasts: true })).api_key;
    },
    /** A GET of the service as the account of `apiKey`. */
    get: (apiKey: string, path: string) => fetch(`${running().url}/v1/${path}`, { headers: { authorization: `Bearer ${apiKey}` } }),
    /** The service's list of a collection, as the account of `apiKey`. */
    async list(apiKey: string, collection: string): Promise<{ id: string; name: string; preview?: boolean }[]> {
      const res = await fetch(`${running().url}/v1/${collection}`, { headers: { authorization: `Bearer ${apiKey}` } });
      expect(res.status).toBe(200);
      return (await res.json()) as { id: string; name: string; preview?: boolean }[];
    },
    /** A resource made on the service directly, outside Pulumi, as the account of `apiKey`: its id. */
    async create(apiKey: string, collection: string, body: unknown): Promise<string> {
      const res = await fetch(`${running().url}/v1/${collection}`, { method: "POST", headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" }, body: JSON.stringify(body) });
      expect(res.status).toBe(201);
      return ((await res.json()) as { id: string }).id;
    },
    /** The writes the service received since the last call. */
    takeWrites: async () => writes(await takeRequests()),
  };
}
