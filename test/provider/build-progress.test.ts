// A build awaited with `waitFor: "ready"` reports each status the service moves through, once, in order, so the
// engine can show it on the step's line while the build runs.
import { expect, it } from "vitest";
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
