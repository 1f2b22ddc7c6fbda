// The local engine runs the notes program (test/engine/fixtures/notes) in process, through its real monitor, with
// the program's dynamic provider served in the engine's process; the provider keeps notes as files and journals
// every call.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PassphraseError, type Operation, type RunResult } from "../../provider/engine/index.ts";
import { programHeapArgs } from "../../provider/engine/language.ts";
import { lockStack, StackBusyError } from "../../provider/engine/lock.ts";
import { runNotes } from "./notes-program.ts";

const PASSPHRASE = "correct horse battery staple";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "engine-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(operation: Operation, config: Record<string, string> = {}, secrets: Record<string, string> = {}): Promise<RunResult> {
  return runNotes({ operation, passphrase: PASSPHRASE, stateDir: dir, env: { NOTES_DIR: dir }, config, secrets });
}

/** Calls the provider received since the last look: ["create one", "created one", ...]. */
let seen = 0;
function journal(): string[] {
  const path = join(dir, "journal.log");
  const lines = existsSync(path) ? readFileSync(path, "utf8").trim().split("\n").filter(Boolean) : [];
  const fresh = lines.slice(seen).map((l) => l.replace(/ \d+$/, ""));
  seen = lines.length;
  return fresh;
}

interface StateFile {
  version: number;
  deployment: { resources: { urn: string; type: string; id?: string; inputs: Record<string, unknown>; outputs: Record<string, unknown>; dependencies: string[]; parent?: string; protect?: boolean }[] };
}
const stateText = () => readFileSync(join(dir, "dev.json"), "utf8");
const state = () => JSON.parse(stateText()) as StateFile;
const names = (r: RunResult, op: string) => r.steps.filter((s) => s.op === op && s.phase === "done").map((s) => s.name).sort();

describe("local engine, one stack through its life", { timeout: 120_000 }, () => {
  it("preview plans every create and changes nothing", async () => {
    const r = await run("preview");
    expect(r.ok, r.error).toBe(true);
    expect(names(r, "create")).toEqual(["notes-dev", "one", "shelf", "shelf-inner", "two", "vault"]);
    expect(existsSync(join(dir, "dev.json"))).toBe(false);
    expect(journal()).toEqual([]);
  });

  it("up creates in dependency order, independent resources in parallel, and records the state", async () => {
    const r = await run("up", {}, { token: "s3cr3t-token" });
    expect(r.ok, r.error).toBe(true);
    expect(r.changes).toEqual({ create: 6 });
    const calls = journal();
    // two depends on one: it starts only after one finished
    expect(calls.indexOf("create two")).toBeGreaterThan(calls.indexOf("created one"));
    // one, vault and shelf-inner are independent: all three start before any finishes
    const firstDone = calls.findIndex((c) => c.startsWith("created"));
    expect(calls.slice(0, firstDone).sort()).toEqual(["create one", "create shelf-inner", "create vault"]);
    expect(r.outputs).toMatchObject({ twoText: "after hello", vaultText: "s3cr3t-token", stackName: "dev" });
    expect(r.secretOutputs.sort()).toEqual(["vaultPath", "vaultText"]);

    const s = state();
    expect(s.version).toBe(3);
    const two = s.deployment.resources.find((x) => x.urn.endsWith("::two"))!;
    const one = s.deployment.resources.find((x) => x.urn.endsWith("::one"))!;
    expect(two.dependencies).toContain(one.urn);
    expect(two.type).toBe("pulumi-nodejs:dynamic/notes:Note");
    expect(two.id).toBe(join(dir, "two-a.json"));
    const inner = s.deployment.resources.find((x) => x.urn.endsWith("::shelf-inner"))!;
    expect(inner.urn).toBe("urn:pulumi:dev::notes::notes:index:Shelf$pulumi-nodejs:dynamic/notes:Note::shelf-inner");
    expect(inner.parent).toBe("urn:pulumi:dev::notes::notes:index:Shelf::shelf");
    // dependencies come before dependents in the file
    const urns = s.deployment.resources.map((x) => x.urn);
    expect(urns.indexOf(one.urn)).toBeLessThan(urns.indexOf(two.urn));
  });

  it("keeps secrets encrypted in the state, readable again with the passphrase only", async () => {
    const text = stateText();
    expect(text).not.toContain("s3cr3t-token");
    const vault = state().deployment.resources.find((x) => x.urn.endsWith("::vault"))!;
    expect(vault.inputs["text"]).toMatchObject({ "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", ciphertext: expect.stringMatching(/^v1:/) });
    // additionalSecretOutputs: path is secret even though no input made it so
    expect(vault.outputs["path"]).toHaveProperty("ciphertext");
    await expect(runNotes({ operation: "refresh", passphrase: "wrong", stateDir: dir, env: { NOTES_DIR: dir } })).rejects.toBeInstanceOf(PassphraseError);
  });

  it("an up of a stack another run holds is refused with that error alone: the program, started meanwhile, reaches nothing", async () => {
    const before = stateText();
    journal();
    const held = await lockStack(join(dir, "dev.json"));
    const events: unknown[] = [];
    try {
      await expect(runNotes({ operation: "up", passphrase: PASSPHRASE, stateDir: dir, env: { NOTES_DIR: dir }, onEvent: (e) => events.push(e) })).rejects.toBeInstanceOf(StackBusyError);
      expect(events).toEqual([]);
      expect(journal()).toEqual([]);
      expect(stateText()).toBe(before);
    } finally {
      await held();
    }
    const r = await run("up", {}, { token: "s3cr3t-token" });
    expect(r.ok, r.error).toBe(true);
    journal();
  });

  it("an up whose state does not open fails with that error alone: the program, started meanwhile, reaches nothing", async () => {
    const before = stateText();
    journal();
    const events: unknown[] = [];
    await expect(runNotes({ operation: "up", passphrase: "wrong", stateDir: dir, env: { NOTES_DIR: dir }, onEvent: (e) => events.push(e) })).rejects.toBeInstanceOf(PassphraseError);
    expect(events).toEqual([]);
    expect(journal()).toEqual([]);
    expect(stateText()).toBe(before);
    // The stack is not left locked, nor the monitor listening: the next up runs.
    const r = await run("up", {}, { token: "s3cr3t-token" });
    expect(r.ok, r.error).toBe(true);
    journal();
  });

  it("a StackReference reads another stack's outputs, secrets still secret", async () => {
    const r = await runNotes({ operation: "preview", stack: "reader", passphrase: PASSPHRASE, stateDir: dir, env: { NOTES_DIR: dir }, config: { readStack: "organization/notes/dev" } });
    expect(r.ok, r.error).toBe(true);
    expect(names(r, "read")).toEqual(["organization/notes/dev", "organization/notes/dev-again"]);
    expect(r.outputs["referencedOnePath"]).toBe(join(dir, "one-a.json"));
    expect(r.outputs["referencedVault"]).toBe("s3cr3t-token");
    expect(r.secretOutputs).toContain("referencedVault");
    journal();
  });

  it("a StackReference to another project's stack is refused, never read from this project's stack of that name", async () => {
    const r = await runNotes({ operation: "preview", stack: "reader", passphrase: PASSPHRASE, stateDir: dir, env: { NOTES_DIR: dir }, config: { readStack: "organization/other/dev" } });
    expect(r.ok).toBe(false);
    expect(r.error).toContain(`StackReference organization/other/dev: audience run keeps the stacks of this project (notes) only, in ${dir}; a stack of project other is not there. Run both programs with pulumi and one backend to read it`);
    journal();
  });

  it("a second up with nothing changed calls no create, update or delete", async () => {
    const r = await run("up", {}, { token: "s3cr3t-token" });
    expect(r.ok, r.error).toBe(true);
    expect(r.changes).toEqual({ same: 6 });
    expect(journal()).toEqual([]);
  });

  it("a changed input updates the resource and what derives from it", async () => {
    const r = await run("up", { greeting: "bonjour" }, { token: "s3cr3t-token" });
    expect(r.ok, r.error).toBe(true);
    expect(names(r, "update")).toEqual(["one", "two"]);
    expect(r.steps.find((s) => s.name === "one" && s.phase === "done")?.keys).toEqual(["text"]);
    expect(journal()).toEqual(["update one", "update two"]);
  });

  it("ignoreChanges keeps the old value of an ignored input", async () => {
    const r = await run("up", { greeting: "hola", ignoreText: "true" }, { token: "s3cr3t-token" });
    expect(r.ok, r.error).toBe(true);
    expect(names(r, "update")).toEqual([]);
    expect(r.outputs["twoText"]).toBe("after bonjour");
    expect(journal()).toEqual([]);
  });

  it("a replace creates the new resource before deleting the old one", async () => {
    const r = await run("up", { greeting: "bonjour", slot: "b" }, { token: "s3cr3t-token" });
    expect(r.ok, r.error).toBe(true);
    expect(names(r, "replace")).toEqual(["one"]);
    expect(r.steps.find((s) => s.op === "replace")?.keys[0]).toBe("slot");
    expect(journal()).toEqual(["create one", "created one", "delete one"]);
    expect(existsSync(join(dir, "one-a.json"))).toBe(false);
    expect(existsSync(join(dir, "one-b.json"))).toBe(true);
  });

  it("deleteBeforeReplace deletes first", async () => {
    const r = await run("up", { greeting: "bonjour", slot: "c", deleteBeforeReplace: "true" }, { token: "s3cr3t-token" });
    expect(r.ok, r.error).toBe(true);
    expect(journal()).toEqual(["delete one", "create one", "created one"]);
  });

  it("a check failure fails the run, names the property, and deletes nothing", async () => {
    const r = await run("up", { greeting: "bonjour", slot: "c", dropTwo: "true", broken: "true" }, { token: "s3cr3t-token" });
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/broken.*text: must be a string/);
    expect(journal()).toEqual([]);
    expect(state().deployment.resources.some((x) => x.urn.endsWith("::two"))).toBe(true);
  });

  it("protect refuses a delete; retainOnDelete drops the resource from the state but leaves it in place", async () => {
    const base = { greeting: "bonjour", slot: "c" };
    await run("up", { ...base, protectTwo: "true" }, { token: "s3cr3t-token" });
    journal();
    // The preview says it as the up meets it, as Pulumi's preview does.
    const planned = await run("preview", { ...base, dropTwo: "true" }, { token: "s3cr3t-token" });
    expect(planned.ok).toBe(false);
    expect(planned.error).toMatch(/::two is protected: set protect: false and run up before deleting it$/);
    const refused = await run("up", { ...base, dropTwo: "true" }, { token: "s3cr3t-token" });
    expect(refused.ok).toBe(false);
    expect(refused.error).toMatch(/protected/);
    expect(journal()).toEqual([]);
    expect(state().deployment.resources.find((x) => x.urn.endsWith("::two"))?.protect).toBe(true);

    await run("up", { ...base, retainTwo: "true" }, { token: "s3cr3t-token" });
    const retained = await run("up", { ...base, dropTwo: "true" }, { token: "s3cr3t-token" });
    expect(retained.ok, retained.error).toBe(true);
    expect(names(retained, "delete")).toEqual(["two"]);
    expect(journal()).toEqual([]);
    expect(existsSync(join(dir, "two-a.json"))).toBe(true);
    expect(state().deployment.resources.some((x) => x.urn.endsWith("::two"))).toBe(false);
    rmSync(join(dir, "two-a.json"));
  });

  it("a resource the program no longer declares is deleted; one read with .get() is only forgotten", async () => {
    const base = { greeting: "bonjour", slot: "c" };
    const read = await run("up", { ...base, readOne: "true" }, { token: "s3cr3t-token" });
    expect(read.ok, read.error).toBe(true);
    expect(names(read, "read")).toEqual(["one-copy"]);
    expect(read.outputs["copyText"]).toBe("bonjour");
    journal();
    const r = await run("up", { ...base, dropTwo: "true" }, { token: "s3cr3t-token" });
    expect(r.ok, r.error).toBe(true);
    expect(names(r, "delete")).toEqual(["one-copy", "two"]);
    expect(journal()).toEqual(["delete two"]);
    expect(existsSync(join(dir, "one-c.json"))).toBe(true);
    expect(state().deployment.resources.some((x) => x.urn.endsWith("::two"))).toBe(false);
  });

  it("refresh reports drift and out-of-band deletions and updates the state", async () => {
    writeFileSync(join(dir, "one-c.json"), JSON.stringify({ text: "changed by hand" }));
    rmSync(join(dir, "vault-a.json"));
    const r = await run("refresh");
    expect(r.ok, r.error).toBe(true);
    expect(r.steps.find((s) => s.op === "drift")).toMatchObject({ name: "one", keys: ["text"] });
    expect(names(r, "gone")).toEqual(["vault"]);
    const one = state().deployment.resources.find((x) => x.urn.endsWith("::one"))!;
    expect(one.outputs["text"]).toBe("changed by hand");
    expect(state().deployment.resources.some((x) => x.urn.endsWith("::vault"))).toBe(false);
    // the next up puts back what the program declares
    const up = await run("up", { greeting: "bonjour", slot: "c", dropTwo: "true" }, { token: "s3cr3t-token" });
    expect(up.ok, up.error).toBe(true);
    expect(names(up, "update")).toEqual(["one"]);
    expect(names(up, "create")).toEqual(["vault"]);
  });

  it("a resource renamed with an alias is the same resource: its preview plans no delete, its up makes no call", async () => {
    const base = await run("up", {}, { token: "s3cr3t-token" });
    expect(base.ok, base.error).toBe(true);
    journal();
    const count = base.steps.filter((s) => s.phase === "done").length;
    for (const operation of ["preview", "up"] as const) {
      const r = await run(operation, { renameVault: "true" }, { token: "s3cr3t-token" });
      expect(r.ok, r.error).toBe(true);
      expect(r.changes, operation).toEqual({ same: count });
      expect(journal()).toEqual([]);
    }
    expect(state().deployment.resources.map((r) => r.urn.split("::").at(-1))).toContain("strongbox");
    expect(state().deployment.resources.map((r) => r.urn.split("::").at(-1))).not.toContain("vault");
    // Back to its first name, the alias gone: a create and a delete, as Pulumi plans them.
    const back = await run("up", {}, { token: "s3cr3t-token" });
    expect(back.ok, back.error).toBe(true);
    expect(names(back, "create")).toEqual(["vault"]);
    expect(names(back, "delete")).toEqual(["strongbox"]);
    journal();
  });

  it("destroy deletes everything, dependents first", async () => {
    await run("up", { greeting: "bonjour", slot: "c" }, { token: "s3cr3t-token" });
    journal();
    const r = await run("destroy");
    expect(r.ok, r.error).toBe(true);
    const calls = journal();
    expect(calls.sort()).toEqual(["delete one", "delete shelf-inner", "delete two", "delete vault"]);
    const deleted = r.steps.filter((s) => s.op === "delete").map((s) => s.name);
    expect(deleted.indexOf("two")).toBeLessThan(deleted.indexOf("one"));
    expect(deleted.indexOf("shelf-inner")).toBeLessThan(deleted.indexOf("shelf"));
    expect(state().deployment.resources).toEqual([]);
  });
});

describe("the heap a program gets", () => {
  it("is raised past V8's default, unless NODE_OPTIONS or the project's nodeargs set it", () => {
    expect(programHeapArgs("", [], 12_000)).toEqual(["--max-old-space-size=12000"]);
    expect(programHeapArgs("--conditions=source", ["--require=x"], 12_000)).toEqual(["--max-old-space-size=12000"]);
    expect(programHeapArgs("--conditions=source --max-old-space-size=2048", [], 12_000)).toEqual([]);
    expect(programHeapArgs("", ["--max_old_space_size=2048"], 12_000)).toEqual([]);
  });
});
