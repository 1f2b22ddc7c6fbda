// A destroy whose delete of a resource fails: what that resource depends on cannot be deleted before it, and is
// reported skipped, with the failure that kept it, as `up` reports what depends on a failure.
import { expect, it } from "vitest";
import { nativePrograms } from "./native-programs.ts";

const world = nativePrograms({ port: 0, builds: { default: "immediate" } });

const program = `import * as audience from "pulumi-audience";
const leads = audience.getCohortOutput({ name: "Leads" }).id;
const scope = new audience.Scope("scope", { name: "Scope", population: { cohortIds: [leads] }, payload: { cohortIds: [leads] }, preview: true });
new audience.Target("csv", { name: "CSV", scopeId: scope.id, representation: { mode: "identified" }, options: { type: "hosted_csv" } });
`;

it("reports the resources left behind a failed delete as skipped, naming the failure", { timeout: 180_000 }, async () => {
  const { apiKey } = await world.account("destroy-skips");
  const dir = world.program("destroy-skips", { index: program });
  const up = await world.run(dir, apiKey, "up");
  expect(up.ok, up.error).toBe(true);
  await world.control("PUT", "/faults", { rules: [{ method: "DELETE", path: "/targets/*", status: 400 }] });
  const destroy = await world.run(dir, apiKey, "destroy");
  await world.control("DELETE", "/faults");
  expect(destroy.ok).toBe(false);
  const byName = Object.fromEntries(destroy.steps.filter((s) => s.phase === "failed" || s.phase === "skipped").map((s) => [s.name, [s.phase, s.cause]]));
  // The stack too: its resources are not all gone.
  expect(byName).toEqual({ csv: ["failed", undefined], scope: ["skipped", expect.stringMatching(/::csv$/)], "destroy-skips-dev": ["skipped", expect.stringMatching(/::scope$/)] });
});
