// A program that throws is reported with its own message and a stack naming its file and line, even though the
// engine keeps the runtime's stack traces cheap (no source-map formatting, no stack per promise).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { runProgram } from "../../provider/cli/program.ts";

const FIXTURE = join(import.meta.dirname, "fixtures", "notes");
const dir = mkdtempSync(join(tmpdir(), "engine-program-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("a program that throws fails the run with its message and the place it threw", { timeout: 120_000 }, async () => {
  const r = await runProgram({ cwd: FIXTURE, operation: "preview", passphrase: "p", stateDir: dir, env: { NOTES_DIR: dir }, config: { throw: "true" } });
  expect(r.ok).toBe(false);
  const report = r.diagnostics.filter((d) => d.severity === "error").map((d) => d.message).join("\n");
  expect(report).toContain("Error: the notes program failed on purpose");
  expect(report).toMatch(/at .*fixtures\/notes\/index\.ts:\d+:\d+/);
});

it("each resource records where the program declared it, as Pulumi records it", { timeout: 120_000 }, async () => {
  const stateDir = join(dir, "positions");
  const r = await runProgram({ cwd: FIXTURE, operation: "up", stack: "positions", passphrase: "p", stateDir, env: { NOTES_DIR: dir } });
  expect(r.ok, r.error).toBe(true);
  const { deployment } = JSON.parse(readFileSync(join(stateDir, "positions.json"), "utf8")) as { deployment: { resources: { urn: string; sourcePosition?: string }[] } };
  const at = Object.fromEntries(deployment.resources.map((res) => [res.urn.split("::").at(-1), res.sourcePosition]));
  // The first frame in the project, outside node_modules: the constructor of the program's Note class.
  const noteConstructor = "project:///provider.ts#64,5";
  expect(at).toMatchObject({ one: noteConstructor, two: noteConstructor, vault: noteConstructor, "shelf-inner": noteConstructor });
});
