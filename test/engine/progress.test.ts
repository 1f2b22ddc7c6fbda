// Which resources failed in a run: what every registration asks of its dependencies before it runs.
import { expect, it } from "vitest";
import { Progress } from "../../provider/engine/events.ts";
import type { Step } from "../../provider/engine/steps.ts";

const urn = (name: string) => `urn:pulumi:dev::shop::pulumi-nodejs:dynamic/audience:Cohort::${name}`;
const create = (name: string): Step => ({ op: "create", urn: urn(name), new: { urn: urn(name), custom: true, type: "pulumi-nodejs:dynamic/audience:Cohort", inputs: {}, outputs: {}, dependencies: [] } });

it("names the resources whose step failed, failed before it started or was skipped, and no other", async () => {
  const progress = new Progress(() => undefined, false);
  await progress.track(create("done"), async () => undefined);
  await expect(progress.track(create("broken"), async () => { throw new Error("refused"); })).rejects.toThrow("refused");
  progress.fail("create", urn("invalid"), ["name"], "invalid inputs");
  progress.skip("create", urn("after"), urn("broken"));
  expect(["done", "broken", "invalid", "after", "never"].map((n) => progress.hasFailed(urn(n)))).toEqual([false, true, true, true, false]);
  expect(progress.failed).toBe(true);
});
