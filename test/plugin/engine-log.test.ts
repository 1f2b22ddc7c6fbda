// The local engine shows the plugin's warnings as it shows a program's: the plugin sends them to the Log service at
// the address the engine gives it, and the run keeps them as warnings on the resource they are about.
import { expect, it } from "vitest";
import { nativePrograms } from "../engine/native-programs.ts";

const world = nativePrograms({ port: 0 });

it("keeps a warning of the plugin (a create whose answer was lost) as a warning of the run, on its resource", { timeout: 180_000 }, async () => {
  const { apiKey } = await world.account("plugin-log");
  const dir = world.program("plugin-log", {
    index: `import * as audience from "pulumi-audience/native";\nnew audience.Cohort("lost", { name: "Lost answer", streamName: "transactions", minCount: 100 });\n`,
  });
  await world.control("PUT", "/faults", { rules: [{ method: "POST", path: "/cohorts", reset: "after", count: 1 }] });
  const up = await world.run(dir, apiKey, "up");
  expect(up.ok, up.error).toBe(true);
  const warning = up.diagnostics.find((d) => d.message.includes(`Cohort "Lost answer": the create's answer was lost`));
  expect(warning).toMatchObject({ severity: "warning", urn: expect.stringMatching(/::audience:index:Cohort::lost$/) });
});
