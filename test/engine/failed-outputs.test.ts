// A program that reads an output of a resource whose step failed, or was skipped for a failure before it: the run
// reports that failure once, and the read is no second error (the output is not known).
import { describe, expect, it } from "vitest";
import { nativePrograms } from "./native-programs.ts";

const world = nativePrograms({ port: 0, builds: { default: "immediate" } });

const program = (module: string) => `import * as audience from "${module}";
const scope = new audience.Scope("scope", { name: "Scope", population: { cohortIds: [audience.getCohortOutput({ name: "Leads" }).id] }, payload: { cohortIds: [audience.getCohortOutput({ name: "Leads" }).id] }, preview: true });
const target = new audience.Target("csv", { name: "CSV", scopeId: scope.id, representation: { mode: "identifed" }, options: { type: "hosted_csv" } });
export const url = target.outputUrl;
export const status = scope.status;
`;

describe.each([["native", "pulumi-audience/native"], ["dynamic", "pulumi-audience"]])("outputs of a failed resource, in %s mode", { timeout: 180_000 }, (mode, module) => {
  it("are not known, and reading them is no second failure", async () => {
    const { apiKey } = await world.account(`failed-outputs-${mode}`);
    const dir = world.program(`failed-outputs-${mode}`, { index: program(module) });
    for (const operation of ["preview", "up"] as const) {
      const run = await world.run(dir, apiKey, operation);
      expect(run.ok).toBe(false);
      const errors = [...run.diagnostics.filter((d) => d.severity === "error").map((d) => d.message), ...run.steps.flatMap((s) => (s.error ? [s.error] : []))];
      expect(errors.join("\n"), operation).not.toContain("getResource");
      expect(errors.filter((e) => e.includes("representation.mode")), operation).toHaveLength(1);
    }
  });
});
