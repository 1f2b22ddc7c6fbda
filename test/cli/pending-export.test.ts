// `audience pending --file` on the export of a stack that is not `dev`: its creates are looked for in the account
// that stack's own config names (the export's stack), not in the account of `dev`'s config, and the command it
// prints imports into that stack.
import { readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { expect, it } from "vitest";
import { GIVES_UP_SOON, nativePrograms, PASSPHRASE } from "../engine/native-programs.ts";
import { audiencePending } from "../engine/pending-step.ts";
import { audience } from "./helpers.ts";

const world = nativePrograms({ port: 0, builds: { default: "immediate" } });

it("looks in the account of the exported stack's config, and names that stack in the import", { timeout: 240_000 }, async () => {
  const other = await world.account("pending-export-other");
  const dev = await world.account("pending-export-dev");
  const dir = world.program("pending-export", { index: `import * as audience from "pulumi-audience";\nnew audience.Cohort("cohort", { name: "Exported pending", streamName: "transactions", minCount: 3 });\n` });
  const baseUrl = `${world.emulator.url}/v1`;
  writeFileSync(join(dir, "Pulumi.dev.yaml"), `config:\n  audience:apiKey: ${dev.apiKey}\n  audience:baseUrl: ${baseUrl}\n`);
  writeFileSync(join(dir, "Pulumi.other.yaml"), `config:\n  audience:apiKey: ${other.apiKey}\n  audience:baseUrl: ${baseUrl}\n`);
  // The create's answer is lost and the look that follows fails: the create stays pending, its cohort made.
  await world.control("PUT", "/faults", { rules: [{ method: "POST", path: "/cohorts", reset: "after", count: 1 }, { method: "GET", path: "/cohorts", status: 503 }] });
  const up = await world.run(dir, other.apiKey, "up", { stack: "other", env: GIVES_UP_SOON });
  await world.control("DELETE", "/faults");
  expect(up.ok).toBe(false);
  const made = (await world.list<{ id: string; name: string }>(other.apiKey, "cohorts")).filter((c) => c.name === "Exported pending");
  expect(made).toHaveLength(1);

  const env = { PULUMI_CONFIG_PASSPHRASE: PASSPHRASE, AUDIENCE_API_KEY: "", AUDIENCE_BASE_URL: "" };
  const exported = join(dir, "other-export.json");
  const exportRun = await audience(["stack", "export", "--cwd", dir, "--stack", "other", "--state-dir", join(dir, "state"), "--file", exported], { env });
  expect(exportRun.code, exportRun.stderr).toBe(0);
  expect(JSON.stringify(JSON.parse(readFileSync(exported, "utf8")))).toContain("pending_operations");

  const out = join(dir, "resolved.json");
  const pending = await audiencePending(["--file", exported, "--cwd", dir, "--out", out, "--json"], env);
  expect(pending.code, pending.stderr).toBe(0);
  const answer = JSON.parse(pending.stdout) as { pending: { action: string; id?: string }[]; command?: string };
  expect(answer.pending).toEqual([expect.objectContaining({ action: "import", id: made[0]!.id })]);
  expect(answer.command).toBe(`pulumi stack import --stack other --file ${out}`);
});

it("run where this engine keeps no state, says how to give a Pulumi CLI stack's export", async () => {
  const dir = world.program("pending-no-state", { index: "export {};\n" });
  const pending = await audiencePending(["--cwd", dir, "--stack", "prod"], {});
  expect(pending.code).toBe(1);
  expect(pending.stderr).toBe(`error: no state of this engine at ${join(dir, ".audience", "state", "prod.json")}; for a stack of the Pulumi CLI, give its export: \`pulumi stack export --stack prod | audience pending --file - --since <when the run began> --cwd ${relative(process.cwd(), dir)} --stack prod\`\n`);
});

it("names a missing export as such", async () => {
  const pending = await audiencePending(["--file", "/nonexistent/export.json"], {});
  expect(pending.code).toBe(1);
  expect(pending.stderr).toBe("error: --file /nonexistent/export.json: no such file\n");
});

it("tells a pending update, which needs no resolving, and what the next run does with it", { timeout: 240_000 }, async () => {
  const account = await world.account("pending-update");
  const dir = world.program("pending-update", { index: `import * as audience from "pulumi-audience";\nnew audience.Cohort("cohort", { name: process.env["COHORT_NAME"] ?? "Before", streamName: "transactions" });\n` });
  writeFileSync(join(dir, "Pulumi.dev.yaml"), `config:\n  audience:apiKey: ${account.apiKey}\n  audience:baseUrl: ${world.emulator.url}/v1\n`);
  expect((await world.run(dir, account.apiKey, "up")).ok).toBe(true);
  // The update's answer is a 500 every time: its outcome stays unknown, and the run leaves it pending.
  await world.control("PUT", "/faults", { rules: [{ method: "PATCH", path: "/cohorts/*", status: 500 }] });
  const up = await world.run(dir, account.apiKey, "up", { env: { ...GIVES_UP_SOON, COHORT_NAME: "After" } });
  await world.control("DELETE", "/faults");
  expect(up.ok).toBe(false);
  const env = { PULUMI_CONFIG_PASSPHRASE: PASSPHRASE, AUDIENCE_API_KEY: "", AUDIENCE_BASE_URL: "" };
  const exported = join(dir, "export.json");
  expect((await audience(["stack", "export", "--cwd", dir, "--state-dir", join(dir, "state"), "--file", exported], { env })).code).toBe(0);
  const pending = await audiencePending(["--file", exported, "--cwd", dir], env);
  expect(pending.code, pending.stderr).toBe(0);
  expect(pending.stdout).toMatch(/^No pending creates in this state\npending update urn:pulumi:dev::pending-update::[^ ]*Cohort::cohort: its outcome is not known, and the state keeps the resource as it was; the next run sends it again, which changes nothing where it took effect\n$/);
});
