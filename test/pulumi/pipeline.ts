// What the Go and Java tests check of the adaptive-discounting pipeline they deploy (examples/other-languages): what
// its `up` leaves in the two accounts, and that its `destroy` leaves nothing there.
import { expect } from "vitest";
import { pathOf } from "../engine/emulator-control.ts";
import type { PulumiStack, Run } from "./cli.ts";
import type { emulatedService } from "./emulated.ts";

type Service = ReturnType<typeof emulatedService>;
interface Keys {
  apiKey: string;
  northKey: string;
}

/** The scope, the hosted-CSV target and the connection in the default account; the north cohort in the second only. */
export async function expectPipelineDeployed(service: Service, keys: Keys, outputs: Record<string, unknown>): Promise<void> {
  expect((await service.list(keys.apiKey, "scopes")).map((s) => s.id)).toEqual([outputs["scopeId"]]);
  expect((await service.list(keys.apiKey, "targets")).map((t) => t.name)).toEqual(["Adaptive discounting (hosted CSV)"]);
  expect((await service.list(keys.apiKey, "connections")).map((c) => c.id)).toEqual([outputs["connectionId"]]);
  expect((await service.list(keys.northKey, "cohorts")).map((c) => c.name)).toContain("North leads");
  expect((await service.list(keys.apiKey, "cohorts")).map((c) => c.name)).not.toContain("North leads");
}

/**
 * `pulumi destroy` through `must`, then: no custom resource left in state, nothing of the pipeline in either account,
 * and every resource the state held reads as gone there.
 */
export async function destroyPipeline(stack: PulumiStack, must: (args: string[]) => Promise<Run>, service: Service, keys: Keys): Promise<void> {
  const resources = async () => (await stack.exported()).deployment.resources ?? [];
  const before = (await resources()).filter((r) => r.id && pathOf(r.type));
  await must(["destroy", "--yes", "--skip-preview"]);
  expect((await resources()).filter((r) => r.custom)).toEqual([]);
  for (const collection of ["scopes", "targets", "connections"]) expect(await service.list(keys.apiKey, collection)).toEqual([]);
  expect((await service.list(keys.northKey, "cohorts")).map((c) => c.name)).not.toContain("North leads");
  for (const res of before) {
    for (const key of Object.values(keys)) expect((await service.get(key, `${pathOf(res.type)}/${res.id}`)).status, res.urn).toBeOneOf([404, 410]);
  }
}
