// An adopted resource deleted by hand, as a user meets it through `audience run` (the command's own process): after
// refresh records it gone, the preview plans a create (not an import) and warns, naming adoptId, that a new one is
// made; the up makes it, and the next up changes nothing; no step dead-ends on the adopted id's 404.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "pulumi-audience/emulator";
import { audience, ROOT } from "../cli/helpers.ts";

const PASSPHRASE = "adopt gone passphrase";
// Inside the repository, so that the program resolves `pulumi-audience` to this checkout.
const WORK = join(ROOT, ".audience", "adopt-tests");
let emulator: RunningEmulator;
let dir: string;
beforeAll(async () => {
  emulator = await startEmulator({ host: "127.0.0.1" });
  mkdirSync(WORK, { recursive: true });
  dir = mkdtempSync(join(WORK, "gone-"));
  writeFileSync(join(dir, "Pulumi.yaml"), "name: adopt-gone\nruntime:\n  name: nodejs\n  options:\n    typescript: false\nmain: index.ts\n");
  writeFileSync(join(dir, "index.ts"), `import * as pulumi from "@pulumi/pulumi";
import * as audience from "pulumi-audience";
const config = new pulumi.Config();
export const cohortId = new audience.Cohort("adopted", { name: "Adopted", adoptId: config.require("adoptId") }).id;
`);
});
afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

const api = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${emulator.url}/v1${path}`, {
    method, headers: { authorization: `Bearer ${emulator.apiKey}`, ...(body ? { "content-type": "application/json" } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: res.status === 204 ? undefined : (await res.json()) as Record<string, unknown> };
};

describe("an adopted resource deleted by hand", { timeout: 240_000 }, () => {
  it("is made anew by the next up, the plan warning that it will be, naming adoptId", async () => {
    const made = await api("POST", "/cohorts", { name: "Adopted" });
    const adoptId = String(made.body!.id);
    const run = (...args: string[]) => audience(["run", ...args, "--cwd", dir, "--state-dir", join(dir, "state"), "-c", `adoptId=${adoptId}`], {
      env: { PULUMI_CONFIG_PASSPHRASE: PASSPHRASE, AUDIENCE_API_KEY: emulator.apiKey, AUDIENCE_BASE_URL: `${emulator.url}/v1` }, timeoutMs: 120_000,
    });
    const first = await run("up", "--yes", "--json");
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout).outputs.cohortId).toBe(adoptId);
    expect(JSON.parse(first.stdout).changes).toEqual({ create: 1, adopt: 1 });

    expect((await api("DELETE", `/cohorts/${adoptId}`)).status).toBe(204);
    const refresh = await run("refresh", "--yes");
    expect(refresh.code, refresh.stdout + refresh.stderr).toBe(0);

    const warning = new RegExp(`adoptId ${adoptId} names no Cohort in the account \\(deleted outside the program\\?\\): a new Cohort is created in its place; remove adoptId from the program`);
    const preview = await run("preview");
    expect(preview.code, preview.stdout + preview.stderr).toBe(0);
    expect(preview.stdout + preview.stderr).toMatch(warning);
    // The plan says what the up does: a create, not an import of the id that is gone.
    expect(preview.stdout).toMatch(/^\+ +create +audience:Cohort +adopted$/m);
    expect(preview.stdout).not.toMatch(/import/);
    expect(preview.stdout).toMatch(/cohortId: \(known after apply\)/);

    const up = await run("up", "--yes", "--json");
    expect(up.code, up.stdout + up.stderr).toBe(0);
    const result = JSON.parse(up.stdout) as { outputs: { cohortId: string }; diagnostics: { message: string }[]; changes: Record<string, number> };
    expect(result.diagnostics.map((d) => d.message).join("\n")).toMatch(warning);
    expect(result.outputs.cohortId).not.toBe(adoptId);
    expect(result.changes).toEqual({ same: 1, create: 1 });
    const cohorts = (await api("GET", "/cohorts")).body as unknown as { id: string; name: string }[];
    expect(cohorts.filter((c) => c.name === "Adopted").map((c) => c.id)).toEqual([result.outputs.cohortId]);

    const again = await run("up", "--yes", "--json");
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).changes).toEqual({ same: 2 });
  });
});
