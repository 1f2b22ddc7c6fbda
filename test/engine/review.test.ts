// What a reviewer and an on-call engineer read, through the engine against the emulator: plans of a connection
// with its credential masked and nothing else, a resource archived by hand seen alike by drift, refresh and
// preview, the resources a dataset makes attributed to it, and a preview that fails where the deploy would.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "pulumi-audience/emulator";
import { runProgram, type Operation, type RunResult } from "../../provider/engine/index.ts";
import { createRenderer } from "../../provider/engine/render.ts";
import { audience } from "../cli/helpers.ts";
import { driftReport } from "../../provider/cli/drift/index.ts";
import { generateProgram } from "../../provider/cli/generate.ts";
import { readSettings } from "../../provider/runtime/lifecycle/settings.ts";
import { lookupIn } from "../../provider/runtime/resources/lookup.ts";

const FIXTURE = join(import.meta.dirname, "fixtures", "review");
const PASSPHRASE = "review passphrase";

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(() => emulator.close());

/** A fresh account of the emulator, its key, and a state directory of its own. */
async function freshStack() {
  const res = await fetch(`${emulator.url}/_emulator/accounts`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name: `review-${Date.now()}` }) });
  const apiKey = ((await res.json()) as { api_key: string }).api_key;
  const stateDir = mkdtempSync(join(tmpdir(), "review-"));
  const env = { AUDIENCE_API_KEY: apiKey, AUDIENCE_BASE_URL: `${emulator.url}/v1` };
  /** Runs the operation, printing as `audience run` prints (off a terminal); answers the result and the text. */
  const run = async (operation: Operation, config: Record<string, string>, secrets: Record<string, string> = {}, options: { diff?: boolean; env?: Record<string, string> } = {}) => {
    const out = new PassThrough();
    let text = "";
    out.on("data", (c: Buffer) => (text += c.toString()));
    const renderer = createRenderer({ out, err: out, tty: false, env: { NO_COLOR: "1" }, ...(options.diff ? { diff: true } : {}) });
    const result: RunResult = await runProgram({ cwd: FIXTURE, operation, passphrase: PASSPHRASE, stateDir, env: options.env ?? env, config, secrets, onEvent: renderer.event });
    renderer.summary(result);
    return { result, text };
  };
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${emulator.url}/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return text ? JSON.parse(text) as unknown : undefined;
  };
  const state = () => JSON.parse(readFileSync(join(stateDir, "dev.json"), "utf8")) as { deployment: { resources: { urn: string; id?: string; inputs?: Record<string, unknown>; outputs?: Record<string, unknown> }[] } };
  return { apiKey, env, stateDir, run, api, state, close: () => rmSync(stateDir, { recursive: true, force: true }) };
}

describe("a connection's plan shows every member but its credential", { timeout: 180_000 }, () => {
  const connection = { parts: "connection" };
  const password = { password: "first-password-9d1e" };

  it("a create with --diff, a host change in preview and up, the state and the outputs", async () => {
    const stack = await freshStack();
    try {
      const created = await stack.run("preview", connection, password, { diff: true });
      expect(created.result.ok, created.text).toBe(true);
      expect(created.text).toContain('    options.host: "db1.example.com"\n');
      expect(created.text).toContain("    options.password: [secret]\n");
      expect(created.text).not.toContain("options: [secret]");
      expect(created.text).not.toContain("__"); // no internal member reaches a person
      expect((await stack.run("up", connection, password)).result.ok).toBe(true);

      const changed = { ...connection, host: "db2.example.com" };
      for (const operation of ["preview", "up"] as const) {
        const { result, text } = await stack.run(operation, changed, password);
        expect(result.ok, text).toBe(true);
        expect(text).toContain('    options.host: "db1.example.com" -> "db2.example.com"\n');
        expect(text).not.toContain("options.password");
        expect(text).not.toContain("[secret] -> [secret]");
        expect(text + JSON.stringify(result)).not.toContain(password.password);
      }
      const warehouse = stack.state().deployment.resources.find((r) => r.urn.endsWith("::warehouse"))!;
      for (const side of [warehouse.inputs!, warehouse.outputs!]) {
        const options = side.options as Record<string, unknown>;
        expect(options.host).toBe("db2.example.com");
        expect(JSON.stringify(options.password)).toContain("ciphertext");
      }
      expect(readFileSync(join(stack.stateDir, "dev.json"), "utf8")).not.toContain(password.password);

      const refreshed = await stack.run("refresh", changed, password);
      expect(refreshed.result.ok, refreshed.text).toBe(true);
      expect(refreshed.result.changes).toEqual({ same: expect.any(Number) as number });
    } finally {
      stack.close();
    }
  });
});

describe("preview checks the provider's config as the deploy would", { timeout: 180_000 }, () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  /** `audience run preview` of the pipeline, with the account's config given by the environment only. */
  const preview = (env: Record<string, string>) => {
    const stateDir = mkdtempSync(join(tmpdir(), "review-config-"));
    dirs.push(stateDir);
    return audience(["run", "preview", "--cwd", FIXTURE, "--state-dir", stateDir, "-c", "parts=pipeline"], { env: { PULUMI_CONFIG_PASSPHRASE: PASSPHRASE, AUDIENCE_API_KEY: "", AUDIENCE_BASE_URL: "", ...env }, timeoutMs: 120_000 });
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
});

describe("what the service makes for a managed resource belongs to it", { timeout: 240_000 }, () => {
  it("a dataset's stream and trait: not unmanaged in drift, not adopted again by generate, removed by destroy", async () => {
    const stack = await freshStack();
    try {
      const parts = { parts: "dataset" };
      const up = await stack.run("up", parts);
      expect(up.result.ok, up.text).toBe(true);
      const names = async (collection: string) => ((await stack.api("GET", `/${collection}`)) as { name: string }[]).map((d) => d.name);
      expect(await names("streams")).toContain("purchases");
      expect(await names("traits")).toContain("loyalty_tier");

      const report = await driftReport({ states: [join(stack.stateDir, "dev.json")], env: { ...stack.env, PULUMI_CONFIG_PASSPHRASE: PASSPHRASE } });
      expect(report.accounts.flatMap((a) => a.resources.map((r) => [r.type, r.name, r.status]))).toEqual([["Dataset", "purchases", "in_sync"]]);

      const program = await generateProgram(readSettings(() => undefined, stack.env));
      expect(program).toContain("new audience.Dataset(");
      expect(program).not.toMatch(/new audience\.(Stream|Trait)\(/);

      const destroyed = await stack.run("destroy", parts);
      expect(destroyed.result.ok, destroyed.text).toBe(true);
      expect(await names("streams")).not.toContain("purchases");
      expect(await names("traits")).not.toContain("loyalty_tier");
    } finally {
      stack.close();
    }
  });
});

describe("a resource archived by hand", { timeout: 300_000 }, () => {
  it("is drift of archivedAt for drift, refresh and preview alike, and up unarchives it", async () => {
    const stack = await freshStack();
    try {
      const parts = { parts: "pipeline" };
      expect((await stack.run("up", parts)).result.ok).toBe(true);
      const { cohortId, targetId } = (await stack.run("preview", parts)).result.outputs.ids as Record<string, string>;
      // Archiving the cohort with cascade_to_all also archives the scope and the target built on it.
      await stack.api("POST", `/cohorts/${cohortId}/archive`, { cascade_to_all: true });
      const archived = ["buyers", "pipeline", "csv"];

      const report = await driftReport({ states: [join(stack.stateDir, "dev.json")], env: { ...stack.env, PULUMI_CONFIG_PASSPHRASE: PASSPHRASE } });
      const drifted = report.accounts.flatMap((a) => a.resources).filter((r) => r.status === "drifted");
      expect(drifted.map((r) => r.name).sort()).toEqual([...archived].sort());
      for (const r of drifted) expect(r.changes).toEqual([{ path: "archivedAt", expected: null, actual: expect.any(String) as string }]);

      const refreshed = await stack.run("refresh", parts);
      expect(refreshed.result.ok, refreshed.text).toBe(true);
      expect(refreshed.result.steps.filter((s) => s.op === "drift").map((s) => s.name).sort()).toEqual([...archived].sort());
      expect(refreshed.text).toMatch(/ {4}archivedAt: \(none\) -> "\d{4}-/);

      const preview = await stack.run("preview", parts);
      expect(preview.result.ok, preview.text).toBe(true);
      const updates = preview.result.steps.filter((s) => s.op === "update");
      expect(updates.map((s) => s.name).sort()).toEqual([...archived].sort());
      for (const s of updates) expect(s.changes).toEqual([{ path: "archivedAt", old: expect.any(String) as string }]);

      const up = await stack.run("up", parts);
      expect(up.result.ok, up.text).toBe(true);
      const target = (await stack.api("GET", `/targets/${targetId}`)) as { archived_at: string | null };
      expect(target.archived_at).toBeNull();
      const again = await stack.run("preview", parts);
      expect(Object.keys(again.result.changes)).toEqual(["same"]);
    } finally {
      stack.close();
    }
  });
});

describe("a lookup refused for a bad key", () => {
  it("fails with one line naming the account, not the client's error object", async () => {
    const error = await lookupIn(() => ({ apiKey: "not-a-key", baseUrl: `${emulator.url}/v1` }), "cohorts", { name: "Leads", account: "north" }).then(() => undefined, (e: unknown) => e as Error);
    expect(error).toBeInstanceOf(Error);
    expect(error!.message).toMatch(/^getCohort: the service refused the API key of account "north": GET \/cohorts: 401 \w+/);
    expect(error!.message).not.toContain("\n");
    expect(error!.message).not.toContain("not-a-key");
    expect(Object.keys(error!)).toEqual([]); // nothing more printed with it
  });
});
