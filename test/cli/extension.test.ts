// What this package adds to the generic engine: adoption, a resumed create's start and a step's timeout as the inputs
// the lifecycle reads, for this package's resources only, and none of those hints in the CLI-faithful mode.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { audienceExtension, faithfulRun, stateServedInProcess } from "../../provider/cli/extension.ts";
import { EARLIER_PROVIDER_MODULES, providerModule } from "../../provider/runtime/resources/shim.ts";

/** A dynamic cohort as the program registers it (its shim names its family), and as check records it. */
const registeredCohort = { name: "c", __provider: providerModule("cohorts") };
const dynamicCohort = { ...registeredCohort, __kind: "cohorts" };
const nativeCohort = { name: "c" };
const foreign = { name: "note", __provider: "exports.handler = () => ({});" };

describe("the audience extension", () => {
  const extension = audienceExtension({ faithful: false });

  it("adopts by adoptId, and only a non-empty one", () => {
    expect(extension.adoptIdOf?.({ adoptId: "4f2a" })).toBe("4f2a");
    expect(extension.adoptIdOf?.({ adoptId: "" })).toBeUndefined();
    expect(extension.adoptIdOf?.({ name: "c" })).toBeUndefined();
  });

  it("tells this package's resumed creates when the earlier one began, and nobody else's", () => {
    expect(extension.decorateCreate?.("pulumi-nodejs:dynamic/audience:Cohort", dynamicCohort, 1234)).toEqual({ ...dynamicCohort, __createStartedAt: 1234 });
    expect(extension.decorateCreate?.("pulumi-nodejs:dynamic/audience:Cohort", registeredCohort, 1234)).toEqual({ ...registeredCohort, __createStartedAt: 1234 });
    expect(extension.decorateCreate?.("audience:index:Cohort", nativeCohort, 1234)).toEqual({ ...nativeCohort, __createStartedAt: 1234 });
    expect(extension.decorateCreate?.("pulumi-nodejs:dynamic:Resource", foreign, 1234)).toEqual(foreign);
  });

  it("gives the dynamic host's step timeout to this package's resources as an input", () => {
    expect(extension.stepTimeout?.(dynamicCohort, 60)).toEqual({ ...dynamicCohort, __timeoutSeconds: 60 });
    expect(extension.stepTimeout?.(foreign, 60)).toEqual(foreign);
  });

  it("serves this package's dynamic resources in process, others through the host", () => {
    expect(extension.inProcess?.serves(dynamicCohort)).toBe(true);
    expect(extension.inProcess?.serves(registeredCohort)).toBe(true);
    expect(extension.inProcess?.serves({ ...registeredCohort, __provider: `// changed\n${registeredCohort.__provider}` })).toBe(false);
    expect(extension.inProcess?.serves(foreign)).toBe(false);
  });

  it("reads a warning line of the provider's output as a warning, any other as debugging", () => {
    expect(extension.onHostLog?.("warning: Cohort c was made by the lost create")).toEqual({ severity: "warning", message: "Cohort c was made by the lost create" });
    expect(extension.onHostLog?.("loaded")).toEqual({ severity: "debug", message: "loaded" });
  });

  it("sends no hint the Pulumi CLI does not send in the CLI-faithful mode, and serves nothing in process", () => {
    const faithful = audienceExtension({ faithful: true });
    expect(faithful.decorateCreate).toBeUndefined();
    expect(faithful.stepTimeout).toBeUndefined();
    expect(faithful.inProcess).toBeUndefined();
    expect(faithful.packageName).toBe("audience");
    expect(faithful.adoptIdOf?.({ adoptId: "4f2a" })).toBe("4f2a");
  });
});

describe("before a refresh or a destroy", () => {
  const dir = mkdtempSync(join(tmpdir(), "audience-extension-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const state = (name: string, resources: { outputs: Record<string, unknown> }[], padding = "") => {
    const path = join(dir, `${name}.json`);
    writeFileSync(path, JSON.stringify({ padding, resources }));
    return path;
  };

  it("finds a resource served in process in a state, by this version's shim or an earlier one", async () => {
    expect(await stateServedInProcess(state("current", [{ outputs: foreign }, { outputs: dynamicCohort }]))).toBe(true);
    expect(await stateServedInProcess(state("earlier", [{ outputs: { ...dynamicCohort, __provider: EARLIER_PROVIDER_MODULES[0] } }]))).toBe(true);
    expect(await stateServedInProcess(state("previous", [{ outputs: { ...dynamicCohort, __provider: EARLIER_PROVIDER_MODULES.at(-1) } }]))).toBe(true);
    expect(await stateServedInProcess(state("foreign", [{ outputs: foreign }, { outputs: nativeCohort }]))).toBe(false);
    expect(await stateServedInProcess(join(dir, "none.json"))).toBe(false);
  });

  it("finds a shim the file's reading cuts in two", async () => {
    // The shim's text after the line naming its family begins 10 bytes before the first MiB, where the first read ends.
    const shim = providerModule("cohorts");
    const before = `{"padding":"","resources":[{"outputs":{"__provider":`.length + JSON.stringify(shim.slice(0, shim.indexOf("\n") + 1)).length - 1;
    expect(await stateServedInProcess(state("cut", [{ outputs: { __provider: shim } }], "x".repeat((1 << 20) - 10 - before)))).toBe(true);
  });

  it("is CLI-faithful as the flag says, else as AUDIENCE_FAITHFUL says", () => {
    expect(faithfulRun(false, { AUDIENCE_FAITHFUL: "1" })).toBe(false);
    expect(faithfulRun(true, {})).toBe(true);
    expect(faithfulRun(undefined, { AUDIENCE_FAITHFUL: "true" })).toBe(true);
    expect(faithfulRun(undefined, { AUDIENCE_FAITHFUL: "0" })).toBe(false);
    expect(faithfulRun(undefined, {})).toBe(false);
  });
});
