// The control plane's client (pulumi-audience/emulator), as the tests and the bench drive the emulator through it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emulatorControl, startEmulator, type EmulatorControl, type RunningEmulator } from "pulumi-audience/emulator";

let emulator: RunningEmulator;
let plane: EmulatorControl;
beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
  plane = emulatorControl(emulator.url);
});
afterAll(() => emulator?.close());

const get = (path: string, apiKey = emulator.apiKey) => fetch(`${emulator.url}/v1${path}`, { headers: { authorization: `Bearer ${apiKey}` } });

describe("the emulator's control client", () => {
  it("makes an account whose key the service takes", async () => {
    const made = await plane.createAccount({ name: "Client brand" });
    expect(made.id).toMatch(/^[0-9a-f-]{36}$/);
    const current = await get("/accounts/current", made.api_key);
    expect(current.status).toBe(200);
    expect(await current.json()).toMatchObject({ id: made.id, name: "Client brand" });
  });

  it("sets faults the service then applies, and clears them", async () => {
    await plane.setFaults([{ method: "GET", path: "/cohorts", status: 503, count: 1 }]);
    expect((await get("/cohorts")).status).toBe(503);
    expect((await get("/cohorts")).status).toBe(200);
    await plane.setFaults([{ method: "GET", path: "/cohorts", status: 503 }]);
    await plane.setFaults([]);
    expect((await get("/cohorts")).status).toBe(200);
  });

  it("reads the request log as a query selects it, and takes it, leaving it empty", async () => {
    await get("/cohorts");
    const cohortLists = await plane.requests("?method=GET&path=/cohorts");
    expect(cohortLists.length).toBeGreaterThan(0);
    expect(cohortLists.every((r) => r.method === "GET" && r.path === "/cohorts")).toBe(true);
    const taken = await plane.takeRequests();
    expect(taken.some((r) => r.path === "/cohorts" && r.status === 200)).toBe(true);
    expect(await plane.requests()).toEqual([]);
  });

  it("says which control call failed, with the status and the answer", async () => {
    await expect(plane.control("PUT", "/faults", { rules: [{ path: "" }] })).rejects.toThrow(/PUT \/_emulator\/faults: 400 /);
  });
});
