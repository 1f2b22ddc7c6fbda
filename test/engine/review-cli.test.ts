// What a reviewer reads of `audience run preview` of fixtures/review as a user runs it (the command's own process):
// the provider's config checked as the deploy would, and a program that fails printing no plan.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emulatorControl, startEmulator, type RunningEmulator } from "pulumi-audience/emulator";
import { audience } from "../cli/helpers.ts";
import { PASSPHRASE, REVIEW_FIXTURE } from "./review-program.ts";

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(() => emulator.close());

describe("preview checks the provider's config as the deploy would", { timeout: 180_000 }, () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  /** `audience run preview` of the pipeline, with the account's config given by the environment only. */
  const preview = (env: Record<string, string>) => {
    const stateDir = mkdtempSync(join(tmpdir(), "review-config-"));
    dirs.push(stateDir);
    return audience(["run", "preview", "--cwd", REVIEW_FIXTURE, "--state-dir", stateDir, "-c", "parts=pipeline"], { env: { PULUMI_CONFIG_PASSPHRASE: PASSPHRASE, AUDIENCE_API_KEY: "", AUDIENCE_BASE_URL: "", ...env }, timeoutMs: 120_000 });
  };

  it("fails naming audience:apiKey when it is missing or empty, and audience:baseUrl when it is no URL or unreachable", async () => {
    const missing = await preview({ AUDIENCE_BASE_URL: `${emulator.url}/v1` });
    expect(missing.code, missing.stdout + missing.stderr).toBe(1);
    expect(missing.stdout + missing.stderr).toMatch(/audience:apiKey \(or AUDIENCE_API_KEY\) is not set or is empty/);

    const notUrl = await preview({ AUDIENCE_API_KEY: "key-1", AUDIENCE_BASE_URL: "emulator.local:8080" });
    expect(notUrl.code).toBe(1);
    expect(notUrl.stdout + notUrl.stderr).toMatch(/audience:baseUrl \(or AUDIENCE_BASE_URL\) "emulator\.local:8080" .*expected the service's http\(s\) URL/);

    const unreachable = await preview({ AUDIENCE_API_KEY: "key-1", AUDIENCE_BASE_URL: "http://127.0.0.1:9/v1" });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stdout + unreachable.stderr).toMatch(/audience:baseUrl \(or AUDIENCE_BASE_URL\): the service at http:\/\/127\.0\.0\.1:9\/v1 cannot be reached/);

    const refused = await preview({ AUDIENCE_API_KEY: "not-a-key", AUDIENCE_BASE_URL: `${emulator.url}/v1` });
    expect(refused.code).toBe(1);
    expect(refused.stdout + refused.stderr).toMatch(/audience:apiKey \(or AUDIENCE_API_KEY\): the service at .* refused the key/);
    expect(refused.stdout + refused.stderr).not.toContain("not-a-key");
  });

  it("fails naming audience:baseUrl when the URL answers but is not the service (a wrong prefix), once", async () => {
    const wrong = await preview({ AUDIENCE_API_KEY: emulator.apiKey, AUDIENCE_BASE_URL: `${emulator.url}/v2` });
    expect(wrong.code, wrong.stdout + wrong.stderr).toBe(1);
    const said = wrong.stdout + wrong.stderr;
    expect(said).toMatch(/audience:baseUrl \(or AUDIENCE_BASE_URL\): http:\/\/127\.0\.0\.1:\d+\/v2\/v1 is not the service: GET \/accounts\/current answered 404 NOT_FOUND; give the service's URL, such as https:\/\/<service>\/v1/);
    expect(said.match(/is not the service/g)).toHaveLength(1);
  });

  it("passes when the check's answer is lost to a reset connection once: the check is asked again", async () => {
    const plane = emulatorControl(emulator.url);
    await plane.setFaults([{ method: "GET", path: "/accounts/current", reset: "after", count: 1 }]);
    try {
      const passed = await preview({ AUDIENCE_API_KEY: emulator.apiKey, AUDIENCE_BASE_URL: `${emulator.url}/v1` });
      expect(passed.code, passed.stdout + passed.stderr).toBe(0);
      const log = await plane.requests();
      expect(log.filter((r) => r.path.endsWith("/accounts/current") && r.reset === "after")).toHaveLength(1);
    } finally {
      await plane.setFaults([]);
    }
  });
});

describe("a preview whose program fails", { timeout: 120_000 }, () => {
  it("prints no plan line, and its config hint names the command of the CLI the user runs", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), "review-failed-"));
    try {
      // The connection's password is required config the run does not give: the program fails after registering.
      const env = { PULUMI_CONFIG_PASSPHRASE: PASSPHRASE, AUDIENCE_API_KEY: emulator.apiKey, AUDIENCE_BASE_URL: `${emulator.url}/v1` };
      const args = ["run", "preview", "--cwd", REVIEW_FIXTURE, "--state-dir", stateDir, "-c", "parts=pipeline,connection"];
      // Run from where the user is: the program's directory is named, as --cwd named it.
      const cwd = relative(process.cwd(), REVIEW_FIXTURE);
      for (const [stack, command] of [["dev", `audience config set --cwd ${cwd}`], ["prod", `audience config set --cwd ${cwd} --stack prod`]] as const) {
        const r = await audience([...args, "--stack", stack], { env, timeoutMs: 90_000 });
        expect(r.code, r.stdout + r.stderr).toBe(1);
        expect(r.stdout).toBe(`\nNo plan: the program failed (review/${stack}).\n`);
        expect(r.stderr).toContain(`please set a value using the command \`${command} --secret review:password <value>\``);
        expect(r.stderr).not.toContain("pulumi config set");
      }
    } finally {
      rmSync(stateDir, { recursive: true, force: true });
    }
  });
});
