// What a reviewer and an on-call engineer read, through the engine against the emulator: plans of a connection
// with its credential masked and nothing else, a resource archived by hand seen alike by drift, refresh and
// preview, the resources a dataset makes attributed to it, and a preview that fails where the deploy would. The
// program runs in process (review-program.ts); review-cli.test.ts runs fixtures/review through `audience run`.
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "pulumi-audience/emulator";
import type { Operation, RunResult } from "../../provider/engine/index.ts";
import { runProgram } from "../../provider/cli/program.ts";
import { createRenderer } from "../../provider/cli/render.ts";
import { emulatorUnderTest } from "./emulator-control.ts";
import { driftReport } from "../../provider/cli/drift/index.ts";
import { generateProgram } from "../../provider/cli/generate.ts";
import { readSettings } from "../../provider/runtime/lifecycle/settings.ts";
import { lookupIn } from "../../provider/runtime/lifecycle/lookup.ts";
import { inProcessRuntime } from "./in-process-runtime.ts";
import { PASSPHRASE, REVIEW_FIXTURE, reviewProgram } from "./review-program.ts";

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(() => emulator.close());

const { createAccount, takeRequests } = emulatorUnderTest(() => emulator);

/** A fresh account of the emulator, its key, and a state directory of its own. */
async function freshStack() {
  const apiKey = (await createAccount({ name: `review-${Date.now()}` })).api_key;
  const stateDir = mkdtempSync(join(tmpdir(), "review-"));
  const env = { AUDIENCE_API_KEY: apiKey, AUDIENCE_BASE_URL: `${emulator.url}/v1` };
  /** Runs the operation, printing as `audience run` prints (off a terminal); answers the result and the text. */
  const run = async (operation: Operation, config: Record<string, string>, secrets: Record<string, string> = {}, options: { diff?: boolean; env?: Record<string, string> } = {}) => {
    const out = new PassThrough();
    let text = "";
    out.on("data", (c: Buffer) => (text += c.toString()));
    const renderer = createRenderer({ out, err: out, tty: false, env: { NO_COLOR: "1" }, ...(options.diff ? { diff: true } : {}) });
    const result: RunResult = await runProgram({ cwd: REVIEW_FIXTURE, runtime: inProcessRuntime(reviewProgram), operation, passphrase: PASSPHRASE, stateDir, env: options.env ?? env, config, secrets, onEvent: renderer.event });
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

describe("a replace", { timeout: 180_000 }, () => {
  it("marks (forces replace) on the line of the member that forces it, and on no other line", async () => {
    const stack = await freshStack();
    try {
      const parts = { parts: "connection,pipeline" };
      const password = { password: "replace-password-44b0" };
      const up = await stack.run("up", parts, password);
      expect(up.result.ok, up.text).toBe(true);
      const connectionId = stack.state().deployment.resources.find((r) => r.urn.endsWith("::warehouse"))!.id!;
      const { result, text } = await stack.run("preview", { ...parts, delivery: "postgres" }, password);
      expect(result.ok, text).toBe(true);
      const lines = text.split("\n");
      const at = lines.findIndex((l) => /^\+- replace +audience:Target {2}csv/.test(l));
      expect(lines[at]).toBe("+- replace    audience:Target  csv [replace: options.type]");
      const members = lines.slice(at + 1, lines.findIndex((l, i) => i > at && !l.startsWith("    ")));
      expect(members.sort()).toEqual([
        `    connectionId: (none) -> "${connectionId}"`,
        '    options.tableName: (none) -> "audience"',
        '    options.type: "hosted_csv" -> "postgres"  (forces replace)',
      ]);
    } finally {
      stack.close();
    }
  });
});

const md5 = (text: string) => createHash("md5").update(text).digest("hex");

/** A stack whose program uploads `people.csv` (`id,name\n1,Ann\n` at first), after its first up. */
async function uploadedStack() {
  const stack = await freshStack();
  const source = join(stack.stateDir, "people.csv");
  const parts = { parts: "upload", source };
  try {
    writeFileSync(source, "id,name\n1,Ann\n");
    const up = await stack.run("up", parts);
    expect(up.result.ok, up.text).toBe(true);
  } catch (error) {
    stack.close();
    throw error;
  }
  return { stack, source, parts };
}

/** The upload's bytes replaced in the account, outside the program. */
function replaceByHand(stack: { apiKey: string }, body: string): Promise<Response> {
  return fetch(`${emulator.url}/v1/uploads/crm/people.csv`, { method: "POST", headers: { authorization: `Bearer ${stack.apiKey}`, "content-type": "text/csv" }, body });
}

describe("an upload whose bytes changed", { timeout: 180_000 }, () => {
  it("shows the reason in the plan: md5Hash old -> new, from an edited source file or by hand", async () => {
    const { stack, source, parts } = await uploadedStack();
    try {
      expect((await stack.run("preview", parts)).result.changes).toEqual({ same: expect.any(Number) as number });

      // The same path, new bytes: the declared inputs are the same, the plan says what differs.
      writeFileSync(source, "id,name\n1,Ann\n2,Bob\n");
      const edited = await stack.run("preview", parts);
      expect(edited.result.ok, edited.text).toBe(true);
      expect(edited.text).toContain(`~  update     audience:Upload  people\n    md5Hash: "${md5("id,name\n1,Ann\n")}" -> "${md5("id,name\n1,Ann\n2,Bob\n")}"\n`);
      expect((await stack.run("up", parts)).result.ok).toBe(true);

      // Replaced by hand: refresh records the service's bytes, and the plan puts the declared ones back.
      await replaceByHand(stack, "id\n9\n");
      const refreshed = await stack.run("refresh", parts);
      expect(refreshed.text).toContain(`    md5Hash: "${md5("id,name\n1,Ann\n2,Bob\n")}" -> "${md5("id\n9\n")}"\n`);
      const back = await stack.run("preview", parts);
      expect(back.text).toContain(`    md5Hash: "${md5("id\n9\n")}" -> "${md5("id,name\n1,Ann\n2,Bob\n")}"\n`);
    } finally {
      stack.close();
    }
  });
});

describe("an upload recorded before md5Hash was an input", { timeout: 180_000 }, () => {
  it("plans nothing and refreshes nothing while its bytes are unchanged; a change of its bytes is still planned", async () => {
    const { stack, source, parts } = await uploadedStack();
    try {
      // The state as the code before recorded it: the same, without the md5Hash input.
      const file = join(stack.stateDir, "dev.json");
      const saved = JSON.parse(readFileSync(file, "utf8")) as ReturnType<typeof stack.state>;
      const upload = saved.deployment.resources.find((r) => r.urn.endsWith("::people"))!;
      expect(upload.inputs!.md5Hash).toBe(md5("id,name\n1,Ann\n"));
      delete upload.inputs!.md5Hash;
      // Without the checksum the engine keeps now, as it wrote states then, its manifest naming the engine as then.
      const { integrity: _checksum, ...older } = saved as typeof saved & { integrity?: unknown };
      const manifest = { ...(older.deployment as { manifest?: object }).manifest, version: "pulumi-audience local engine" };
      writeFileSync(file, JSON.stringify({ ...older, deployment: { ...older.deployment, manifest } }));
      await takeRequests();

      const preview = await stack.run("preview", parts);
      expect(preview.result.ok, preview.text).toBe(true);
      expect(preview.result.changes, preview.text).toEqual({ same: expect.any(Number) as number });
      const refreshed = await stack.run("refresh", parts);
      expect(refreshed.result.ok, refreshed.text).toBe(true);
      expect(refreshed.result.changes, refreshed.text).toEqual({ same: expect.any(Number) as number });
      expect(refreshed.text).not.toContain("md5Hash");
      expect((await takeRequests()).filter((r) => r.method !== "GET")).toEqual([]);

      // New bytes at the same path: the plan still says the upload changes, by its md5Hash.
      writeFileSync(source, "id,name\n1,Ann\n2,Bob\n");
      const edited = await stack.run("preview", parts);
      expect(edited.result.changes, edited.text).toEqual({ update: 1, same: expect.any(Number) as number });
      expect(edited.text).toContain(`~  update     audience:Upload  people\n    md5Hash: (none) -> "${md5("id,name\n1,Ann\n2,Bob\n")}"\n`);
      // Replaced by hand instead: refresh records the service's bytes as drift.
      writeFileSync(source, "id,name\n1,Ann\n");
      await replaceByHand(stack, "id\n9\n");
      const drifted = await stack.run("refresh", parts);
      expect(drifted.text).toContain(`    md5Hash: (none) -> "${md5("id\n9\n")}"\n`);
      const back = await stack.run("preview", parts);
      expect(back.text).toContain(`    md5Hash: "${md5("id\n9\n")}" -> "${md5("id,name\n1,Ann\n")}"\n`);
    } finally {
      stack.close();
    }
  });
});

describe("preview checks a named account's config as the deploy would", { timeout: 240_000 }, () => {
  it("fails naming audience:accounts.<name>.apiKey or .baseUrl when missing, empty or not a URL", async () => {
    const stack = await freshStack();
    try {
      const url = `${emulator.url}/v1`;
      const cases: [Record<string, string>, RegExp][] = [
        [{ baseUrl: url }, /audience:accounts\.north\.apiKey is not set or is empty/],
        [{ apiKey: "", baseUrl: url }, /audience:accounts\.north\.apiKey is not set or is empty/],
        [{ apiKey: stack.apiKey }, /audience:accounts\.north\.baseUrl is not set/],
        [{ apiKey: stack.apiKey, baseUrl: "" }, /audience:accounts\.north\.baseUrl is not set/],
        [{ apiKey: stack.apiKey, baseUrl: "north.example" }, /audience:accounts\.north\.baseUrl "north\.example" is not a URL: expected the service's http\(s\) URL/],
        [{ apiKey: "not-a-key", baseUrl: url }, /audience:accounts\.north\.apiKey: the service at .* refused the key/],
      ];
      for (const [north, message] of cases) {
        const { result, text } = await stack.run("preview", { parts: "north", "audience:accounts": JSON.stringify({ north }) });
        expect(result.ok, text).toBe(false);
        expect(result.error ?? text).toMatch(message);
        expect(text).not.toContain("not-a-key");
      }
      const fine = await stack.run("preview", { parts: "north", "audience:accounts": JSON.stringify({ north: { apiKey: stack.apiKey, baseUrl: url } }) });
      expect(fine.result.ok, fine.text).toBe(true);
    } finally {
      stack.close();
    }
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

      const { source: program } = await generateProgram(readSettings(() => undefined, stack.env));
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
