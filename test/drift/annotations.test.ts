// `audience drift --format github` as a pull-request check shows it: each drifted resource annotated on the line of
// the program that declares it, for both faces, from the state `audience run` records (the command's own process).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "pulumi-audience/emulator";
import { audience, ROOT } from "../cli/helpers.ts";

// Inside the repository, so that the program resolves `pulumi-audience` to this checkout.
const WORK = join(ROOT, ".audience", "annotation-tests");
let emulator: RunningEmulator;
let dir: string;
beforeAll(async () => {
  emulator = await startEmulator({ host: "127.0.0.1" });
  mkdirSync(WORK, { recursive: true });
  dir = mkdtempSync(join(WORK, "program-"));
  writeFileSync(join(dir, "Pulumi.yaml"), "name: annotated\nruntime:\n  name: nodejs\n  options:\n    typescript: false\n    nodeargs: --require=pulumi-audience/require-node\nmain: index.ts\n");
  writeFileSync(join(dir, "index.ts"), `import * as audience from "pulumi-audience";
import * as native from "pulumi-audience/native";

export const dynamicId = new audience.Cohort("dynamic-one", { name: "Dynamic one" }).id;
export const nativeId = new native.Cohort("native-one", { name: "Native one" }).id;
`);
});
afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("drift annotations", { timeout: 240_000 }, () => {
  it("carry the file, line and column of each drifted resource's declaration, in both faces", async () => {
    const env = { PULUMI_CONFIG_PASSPHRASE: "annotations", AUDIENCE_API_KEY: emulator.apiKey, AUDIENCE_BASE_URL: `${emulator.url}/v1` };
    const up = await audience(["run", "up", "--yes", "--json", "--cwd", dir], { env, timeoutMs: 120_000 });
    expect(up.code, up.stdout + up.stderr).toBe(0);
    const { outputs } = JSON.parse(up.stdout) as { outputs: { dynamicId: string; nativeId: string } };
    for (const id of [outputs.dynamicId, outputs.nativeId]) {
      const res = await fetch(`${emulator.url}/v1/cohorts/${id}`, { method: "PATCH", headers: { authorization: `Bearer ${emulator.apiKey}`, "content-type": "application/merge-patch+json" }, body: JSON.stringify({ name: "Renamed by hand" }) });
      expect(res.status).toBe(200);
    }
    const drift = await audience(["drift", "--format", "github", join(".audience", "state", "dev.json")], { env, cwd: dir });
    expect(drift.code, drift.stderr).toBe(2);
    const warnings = drift.stdout.split("\n").filter((line) => line.startsWith("::warning"));
    expect(warnings).toEqual([
      expect.stringMatching(/^::warning file=index\.ts,line=4,col=\d+,title=drift%3A Cohort dynamic-one drifted/),
      expect.stringMatching(/^::warning file=index\.ts,line=5,col=\d+,title=drift%3A Cohort native-one drifted/),
    ]);
  });
});
