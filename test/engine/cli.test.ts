// `audience run` as a user meets it: plain progress lines off a terminal, one JSON document with --json,
// secrets never printed, and a refusal to change anything without --yes when nobody can be asked.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { audience as cli } from "../cli/helpers.ts";

const FIXTURE = join(import.meta.dirname, "fixtures", "notes");
const dir = mkdtempSync(join(tmpdir(), "engine-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function audience(...args: string[]) {
  return cli(["run", ...args, "--cwd", FIXTURE, "--state-dir", dir], { env: { NOTES_DIR: dir, PULUMI_CONFIG_PASSPHRASE: "cli passphrase" } });
}

it("refuses to change a stack without --yes when not on a terminal", { timeout: 60_000 }, async () => {
  const r = await audience("up");
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(/--yes is required to up when not on a terminal/);
  // The preview it names plans what this run would: with its config, its secrets named but not written.
  const given = await audience("up", "-c", "greeting=hi there", "--secret", "token=hunter2-secret");
  expect(given.stderr).toContain("(see the plan with `audience run preview -c 'greeting=hi there' --secret 'token=<secret>' --cwd ");
  expect(given.stderr).not.toContain("hunter2");
});

it("up prints a line per change and a summary; secrets stay hidden", { timeout: 60_000 }, async () => {
  const r = await audience("up", "--yes", "--secret", "token=hunter2-secret");
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toMatch(/^\+ {2}created {4}notes:Note {2}one \d+\.\ds$/m);
  expect(r.stdout).toMatch(/Resources \(notes\/dev, up\):\n {4}\+ 6 created\n {4}0 unchanged/);
  expect(r.stdout).toMatch(/vaultText: \[secret\]/);
  expect(r.stdout).toContain('vaultHeld: {"slot":"kept","text":"[secret]"}');
  expect(r.stdout + r.stderr).not.toContain("hunter2-secret");
  expect(r.stdout).not.toContain("\u001b[");
});

it("--json prints one document: the changes planned, outputs with secrets masked", { timeout: 60_000 }, async () => {
  const r = await audience("preview", "--json", "-c", "greeting=salut", "--secret", "token=hunter2-secret");
  expect(r.code, r.stderr).toBe(0);
  const doc = JSON.parse(r.stdout) as { ok: boolean; changes: Record<string, number>; steps: { op: string; name: string; keys: string[] }[]; outputs: Record<string, unknown> };
  expect(doc.ok).toBe(true);
  expect(doc.changes).toEqual({ update: 2, same: 4 });
  expect(doc.steps.find((s) => s.name === "one" && s.op === "update")?.keys).toEqual(["text"]);
  expect(doc.outputs["vaultText"]).toBe("[secret]");
  expect(doc.outputs["vaultHeld"]).toEqual({ slot: "kept", text: "[secret]" });
  expect(r.stdout).not.toContain("hunter2-secret");
});
