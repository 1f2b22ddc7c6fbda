// A build awaited with `waitFor: "ready"` reports each status the service moves through, once, in order, so the
// engine can show it on the step's line while the build runs; the wait lasts the whole time it was given.
import { expect, it, vi } from "vitest";
import { createLifecycle, KIND_KEY, readSettings, type Service } from "../../provider/runtime/lifecycle/index.ts";

it("each status of the build is reported as it changes, ending with ready", async () => {
  const id = "9fdc73f5-90d0-4202-93e4-33ee19b8bd18";
  const statuses = ["new", "starting", "starting", "running", "ready"];
  const scope = (status: string) => ({ id, name: "Discounting", preview: true, status });
  const service = {
    create: async () => scope(statuses.shift()!),
    get: async () => scope(statuses.shift()!),
  } as Partial<Service> as Service;
  const reported: string[] = [];
  const lifecycle = createLifecycle({
    settings: () => readSettings(() => undefined, {}),
    service: () => service,
    sleep: async () => undefined,
    progress: (message) => void reported.push(message),
  });
  const cohort = "4b0c2f8e-5d1a-4f3e-9a7b-2c6d8e0f1a2b";
  await lifecycle.create({ [KIND_KEY]: "scopes", name: "Discounting", population: { cohortIds: [cohort] }, payload: { cohortIds: [cohort] }, preview: true, waitFor: "ready" });
  // Named: Pulumi's dynamic-provider host shows the provider's logs on the stack's line, not the resource's.
  const scopeNamed = `Scope "Discounting" (${id})`;
  expect(reported).toEqual([`${scopeNamed}: new`, `${scopeNamed}: starting`, `${scopeNamed}: running`, `${scopeNamed}: ready`]);
});

it("a build done within waitTimeoutSeconds passes, though the next backoff step would end past it", async () => {
  const id = "9fdc73f5-90d0-4202-93e4-33ee19b8bd18";
  vi.useFakeTimers({ toFake: ["Date"] });
  try {
    const start = Date.now();
    // Ready 1 s after the create; the polls' backoff (0.25, 0.5, 1 s) would next look at 1.75 s, past the 1.2 s given.
    const scope = () => ({ id, name: "Slow", preview: true, status: Date.now() - start >= 1000 ? "ready" : "new" });
    const service = { create: async () => scope(), get: async () => scope() } as Partial<Service> as Service;
    const slept: number[] = [];
    const lifecycle = createLifecycle({
      settings: () => readSettings(() => undefined, {}),
      service: () => service,
      sleep: async (ms) => {
        slept.push(ms);
        vi.setSystemTime(Date.now() + ms);
      },
    });
    const cohort = "4b0c2f8e-5d1a-4f3e-9a7b-2c6d8e0f1a2b";
    const created = await lifecycle.create({ [KIND_KEY]: "scopes", name: "Slow", population: { cohortIds: [cohort] }, payload: { cohortIds: [cohort] }, preview: true, waitFor: "ready", waitTimeoutSeconds: 1.2 });
    expect(created.outs).toMatchObject({ status: "ready" });
    expect(slept).toEqual([250, 500, 450]); // the last look at the deadline itself
  } finally {
    vi.useRealTimers();
  }
});
