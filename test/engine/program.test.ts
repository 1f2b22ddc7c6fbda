// A program that throws is reported with its own message and a stack naming its file and line, even though the
// engine keeps the runtime's stack traces cheap (no source-map formatting, no stack per promise).
import { mkdtempSync, rmSync } from "node:fs";
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
