// `audience drift --format github` as a pull-request check shows it: each drifted resource annotated on the line of
// the program that declares it, for both faces, from the state `audience run` records (the command's own process) or
// an export of it in a folder of states.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "pulumi-audience/emulator";
import { audience, ROOT } from "../cli/helpers.ts";

// Inside the repository, so that the program resolves `pulumi-audience` to this checkout.
const WORK = join(ROOT, ".audience", "annotation-tests");
let emulator: RunningEmulator;
// A repository as a CI job checks it out: the program in a folder of its own.
let repo: string;
let dir: string;
beforeAll(async () => {
  emulator = await startEmulator({ host: "127.0.0.1" });
  mkdirSync(WORK, { recursive: true });
  repo = mkdtempSync(join(WORK, "repo-"));
  dir = join(repo, "infra");
  mkdirSync(dir);
  writeFileSync(join(dir, "Pulumi.yaml"), "name: annotated\nruntime:\n  name: nodejs\n  options:\n    typescript: false\n    nodeargs: --require=pulumi-audience/require-node\nmain: index.ts\n");
  writeFileSync(join(dir, "index.ts"), `import * as audience from "pulumi-audience";
import * as native from "pulumi-audience/native";

export const dynamicId = new audience.Cohort("dynamic-one", { name: "Dynamic one" }).id;
export const nativeId = new native.Cohort("native-one", { name: "Native one" }).id;
`);
});
afterAll(async () => {
  await emulator.close();
  rmSync(repo, { recursive: true, force: true });
});

const env = () => ({ PULUMI_CONFIG_PASSPHRASE: "annotations", AUDIENCE_API_KEY: emulator.apiKey, AUDIENCE_BASE_URL: `${emulator.url}/v1` });
const warningsOf = (stdout: string) => stdout.split("\n").filter((line) => line.startsWith("::warning"));

describe("drift annotations", { timeout: 240_000 }, () => {
  it("carry the file, line and column of each drifted resource's declaration, in both faces", async () => {
    const up = await audience(["run", "up", "--yes", "--json", "--cwd", dir], { env: env(), timeoutMs: 120_000 });
    expect(up.code, up.stdout + up.stderr).toBe(0);
    const { outputs } = JSON.parse(up.stdout) as { outputs: { dynamicId: string; nativeId: string } };
    for (const id of [outputs.dynamicId, outputs.nativeId]) {
      const res = await fetch(`${emulator.url}/v1/cohorts/${id}`, { method: "PATCH", headers: { authorization: `Bearer ${emulator.apiKey}`, "content-type": "application/merge-patch+json" }, body: JSON.stringify({ name: "Renamed by hand" }) });
      expect(res.status).toBe(200);
    }
    const drift = await audience(["drift", "--format", "github", join(".audience", "state", "dev.json")], { env: env(), cwd: dir });
    expect(drift.code, drift.stderr).toBe(2);
    expect(warningsOf(drift.stdout)).toEqual([
      expect.stringMatching(/^::warning file=index\.ts,line=4,col=\d+,title=drift%3A Cohort dynamic-one drifted/),
      expect.stringMatching(/^::warning file=index\.ts,line=5,col=\d+,title=drift%3A Cohort native-one drifted/),
    ]);
  });

  it("find the program of a state exported to a folder of states, by its project, or name no file", async () => {
    // As the example CI job exports each stack: to states/ at the repository's root.
    mkdirSync(join(repo, "states"));
    copyFileSync(join(dir, ".audience", "state", "dev.json"), join(repo, "states", "annotated-dev.json"));
    const drift = await audience(["drift", "--format", "github", join("states", "annotated-dev.json")], { env: env(), cwd: repo });
    expect(drift.code, drift.stderr).toBe(2);
    expect(warningsOf(drift.stdout)).toEqual([
      expect.stringMatching(/^::warning file=infra\/index\.ts,line=4,col=\d+,title=/),
      expect.stringMatching(/^::warning file=infra\/index\.ts,line=5,col=\d+,title=/),
    ]);
    // Run where no program of that project is: no file that is not there.
    const away = mkdtempSync(join(tmpdir(), "drift-elsewhere-"));
    try {
      const elsewhere = await audience(["drift", "--format", "github", join(repo, "states", "annotated-dev.json")], { env: env(), cwd: away });
      expect(warningsOf(elsewhere.stdout)).toEqual([expect.stringMatching(/^::warning title=/), expect.stringMatching(/^::warning title=/)]);
    } finally {
      rmSync(away, { recursive: true, force: true });
    }
  });
});
