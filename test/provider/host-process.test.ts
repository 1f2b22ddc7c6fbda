// What only the real dynamic-provider host process shows of the lifecycle (the lifecycle tests call it in process):
// the host loads the `__provider` shim and serves each call over gRPC, keeps the shim on what it answers, carries a
// check's failures and a kept resource's init errors across the wire, and prints a warning as a `warning: ` line
// when it reaches no engine.
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { HostError, startWorld, type World } from "./harness.ts";

let world: World;
let leads: string;

beforeAll(async () => {
  world = await startWorld({ host: "process", builds: { scopes: "manual" } });
  const cohorts = (await world.api("GET", "/cohorts")) as { id: string; name: string }[];
  leads = cohorts.find((c) => c.name === "Leads")!.id;
});
afterAll(async () => world?.close());
beforeEach(async () => {
  await world.control.setFaults([]);
});

const cohort = (name: string, minCount = 100) => world.inputs("cohorts", { name, streamName: "transactions", minCount });

it("serves check, create, read, diff, update and delete through the shim, keeping it on each answer", async () => {
  const checked = await world.host.check({}, cohort("Through the host"));
  expect(checked.failures).toEqual([]);
  const created = await world.host.create(checked.inputs);
  expect(created.properties).toMatchObject({ __provider: world.shim("cohorts"), __kind: "cohorts", name: "Through the host", minCount: 100 });
  const read = await world.host.read(created.id, created.properties);
  expect(read).toMatchObject({ id: created.id, properties: { __provider: world.shim("cohorts"), minCount: 100 } });
  expect(await world.host.diff(created.id, created.properties, cohort("Through the host", 5))).toMatchObject({ changes: "some", replaces: [] });
  const updated = await world.host.update(created.id, created.properties, cohort("Through the host", 5));
  expect(updated.properties).toMatchObject({ __provider: world.shim("cohorts"), minCount: 5 });
  await world.host.delete(created.id, updated.properties);
  await expect(world.api("GET", `/cohorts/${created.id}`)).rejects.toThrow(/404/);
});

// Pulumi prints a failure's property with the input of that name (`value {<nil>}` for a nested path, Go's dump of a
// list or an object): those cross as the resource's, the camelCase path leading the reason.
it("carries a check's failures across the wire, each naming its camelCase path", async () => {
  const { failures } = await world.host.check({}, world.inputs("scopes", { name: "", population: { cohortIds: ["not-a-uuid"] }, payload: {} }));
  expect(failures.map((f) => f.property).sort()).toEqual(["", "", "name", "preview"]);
  const reasons = failures.filter((f) => f.property === "").map((f) => f.reason);
  expect(reasons).toEqual(expect.arrayContaining([expect.stringMatching(/^population\.cohortIds\[0\]: .*uuid/), "payload: must name at least one payload element"]));
});

it("carries a resource kept with init errors across the wire: its id, outputs and reasons", async () => {
  const scope = world.inputs("scopes", { name: "Slow", population: { cohortIds: [leads] }, payload: { cohortIds: [leads] }, preview: true, waitFor: "ready", waitTimeoutSeconds: 0.5 });
  const error = (await world.host.create(scope).catch((e: unknown) => e)) as HostError;
  expect(error).toBeInstanceOf(HostError);
  expect(error.message).toMatch(/still new after 0.5s/);
  expect(error.initFailed?.id).toMatch(/^[0-9a-f-]{36}$/);
  expect(error.initFailed?.reasons.join()).toMatch(/still new after 0.5s/);
  expect(error.initFailed?.properties).toMatchObject({ __provider: world.shim("scopes"), __kind: "scopes", status: "new" });
});

it("prints a warning as a `warning: ` line of its output when it reaches no engine", async () => {
  await world.control.setFaults([{ method: "POST", path: "/cohorts", reset: "after", count: 1 }]);
  const made = await world.host.create(cohort("Reset after create"));
  expect(world.host.logs()).toContain(`warning: Cohort "Reset after create": the create's answer was lost`);
  expect(world.host.logs()).toContain(`${made.id}, made by it, is recorded as the created resource`);
  expect(world.host.warnings().join("\n")).toContain(`${made.id}, made by it, is recorded as the created resource`);
});
