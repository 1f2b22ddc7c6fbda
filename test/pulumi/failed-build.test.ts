// After a build that failed, through the real CLI: Pulumi updates a resource whose step failed even when nothing
// changed. The plan says why (the build is run again) and the update does it (force_update, then the wait), so a
// build that can now pass does, and the plan after that is empty.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "pulumi-audience/emulator";
import { emulatorUnderTest } from "../engine/emulator-control.ts";
import { PLUGIN_IN_PACKAGE, programFolder, pulumiCli, pulumiStack, type PulumiStack, skipReason } from "./cli.ts";
import { writes } from "./emulated.ts";

/** The program in each face: the dynamic one, and the native one with its plugin found where it is installed. */
const FACES = [
  { face: "dynamic", module: "pulumi-audience", type: "pulumi-nodejs:dynamic/audience:Cohort", plugins: "" },
  { face: "native", module: "pulumi-audience/native", type: "audience:index:Cohort", plugins: PLUGIN_IN_PACKAGE },
] as const;
const program = (module: string, plugins: string) => programFolder({
  "Pulumi.yaml": `name: failed-build\nruntime:\n  name: nodejs\n  options:\n    typescript: false\nmain: index.js\n${plugins}`,
  "index.js": `import * as audience from "${module}";
new audience.Cohort("slow", { name: "Slow", streamName: "transactions", minCount: 2, waitFor: "ready" });
`,
});

// Cohort builds move only when the test advances them.
let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator({ port: 0, builds: { cohorts: "manual" } });
});
afterAll(() => emulator?.close());
const { advanceBuilds, createAccount, takeRequests } = emulatorUnderTest(() => emulator);

describe.each(FACES)(`the plan after a failed build, $face face, through pulumi${skipReason()}`, { timeout: 300_000 }, ({ module, type, plugins }) => {
  let stack: PulumiStack;
  let apiKey: string;
  let cohortId: string;

  /** Runs `up`, moving the cohort's build to `to` once the service has it. */
  async function upWhileBuilding(to: "ready" | "error") {
    const running = stack.pulumi(["up", "--yes", "--skip-preview"]);
    for (;;) {
      const advanced = await advanceBuilds({ collection: "cohorts", to, ...(to === "error" ? { error: "the stream is empty" } : {}) });
      if (advanced.length > 0) {
        cohortId = advanced[0]!.id;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return running;
  }

  beforeAll(async () => {
    if (!pulumiCli().dir) return;
    apiKey = (await createAccount({ name: "failed-build" })).api_key;
    stack = await pulumiStack({ program: program(module, plugins), env: { AUDIENCE_BASE_URL: `${emulator.url}/v1` } });
    await stack.config({ "audience:apiKey": apiKey }, true);
    const failed = await upWhileBuilding("error");
    expect(failed.code, failed.output).toBe(1);
    expect(failed.output).toContain("failed to build: the stream is empty");
  });

  it.skipIf(!pulumiCli().dir)("says the update runs the build again, and it does", async () => {
    await takeRequests();
    const preview = await stack.pulumi(["preview"]);
    expect(preview.code, preview.output).toBe(0);
    expect(preview.output).toMatch(new RegExp(`~ +${type} slow update`));
    expect(preview.output).toContain(`Cohort "Slow" (${cohortId}): its last build failed (the stream is empty); this update runs it again (build)`);
    expect(writes(await takeRequests())).toEqual([]);

    const up = await upWhileBuilding("ready");
    expect(up.code, up.output).toBe(0);
    expect(writes(await takeRequests())).toEqual([`POST /cohorts/${cohortId}/force_update`]);
    const after = await stack.must(["preview"]);
    expect(after.output).not.toMatch(new RegExp(`~ +${type}`));
    expect(after.output).not.toContain("its last build failed");
  });
});
