// Scopes through the real dynamic-provider host against the emulator.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorld, type World } from "./harness.ts";

let world: World;
let cohortId: string;

beforeAll(async () => {
  world = await startWorld();
  const cohort = (await world.api("POST", "/cohorts", { name: "Leads" })) as { id: string };
  cohortId = cohort.id;
});
afterAll(async () => world?.close());

describe("scope", () => {
  it("creates, reads back without drift, and deletes", async () => {
    const inputs = world.inputs("scopes", { name: "Discounting", population: { cohortIds: [cohortId] }, payload: { cohortIds: [cohortId] }, preview: true });
    const checked = await world.host.check({}, inputs);
    expect(checked.failures).toEqual([]);
    const created = await world.host.create(checked.inputs);
    const read = await world.host.read(created.id, created.properties);
    const mark = await world.mark();
    const diff = await world.host.diff(created.id, read.properties, checked.inputs);
    expect(diff.changes).toBe("none");
    expect(await world.serviceCalls(mark)).toEqual([]);
    await world.host.delete(created.id, read.properties);
  });
});
