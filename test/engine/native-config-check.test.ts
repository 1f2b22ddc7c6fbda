// A native program's preview, as a user runs it (`audience run preview`, the command's own process): an explicit
// provider whose baseUrl is not the service (a wrong prefix, nothing listening) or whose key the service refuses
// fails the preview with one error naming the provider's member, as the deploy would fail; a good one passes.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { audience } from "../cli/helpers.ts";
import { nativePrograms, PASSPHRASE } from "./native-programs.ts";

const world = nativePrograms();
const stateDirs: string[] = [];
afterAll(() => {
  for (const dir of stateDirs) rmSync(dir, { recursive: true, force: true });
});

const PROGRAM = `import * as pulumi from "@pulumi/pulumi";
import * as audience from "pulumi-audience/native";
const config = new pulumi.Config();
const north = new audience.Provider("north", { apiKey: config.requireSecret("northKey"), baseUrl: config.require("northUrl") });
new audience.Cohort("north-leads", { name: "North leads" }, { provider: north });
`;

describe("a native program's explicit provider, checked at preview", { timeout: 240_000 }, () => {
  it("fails the preview once, naming baseUrl or apiKey, where the deploy would fail; passes when the service answers", async () => {
    const { apiKey } = await world.account("native-check-default");
    const { apiKey: northKey } = await world.account("native-check-north");
    const dir = world.program("native-check", { index: PROGRAM });
    const preview = (northUrl: string, key: string) => {
      const stateDir = mkdtempSync(join(tmpdir(), "native-check-"));
      stateDirs.push(stateDir);
      return audience(["run", "preview", "--cwd", dir, "--state-dir", stateDir, "-c", `northUrl=${northUrl}`, "--secret", `northKey=${key}`], {
        env: { PULUMI_CONFIG_PASSPHRASE: PASSPHRASE, AUDIENCE_API_KEY: apiKey, AUDIENCE_BASE_URL: `${world.emulator.url}/v1` }, timeoutMs: 120_000,
      });
    };
    const cases: [string, string, RegExp][] = [
      [`${world.emulator.url}/v2`, northKey, /http:\/\/127\.0\.0\.1:\d+\/v2\/v1 is not the service: GET \/accounts\/current answered 404 NOT_FOUND; give the service's URL/],
      ["http://127.0.0.1:9/v1", northKey, /the service at http:\/\/127\.0\.0\.1:9\/v1 cannot be reached/],
      [`${world.emulator.url}/v1`, "not-a-key", /the service at .* refused the key/],
    ];
    for (const [northUrl, key, problem] of cases) {
      const failed = await preview(northUrl, key);
      const said = failed.stdout + failed.stderr;
      expect(failed.code, said).toBe(1);
      expect(said).toMatch(problem);
      expect(said.match(new RegExp(problem.source, "g")), said).toHaveLength(1);
      expect(said).not.toContain("not-a-key");
    }
    const passed = await preview(`${world.emulator.url}/v1`, northKey);
    expect(passed.code, passed.stdout + passed.stderr).toBe(0);
  });
});
