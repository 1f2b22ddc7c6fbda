// A damaged state file is refused with the place that is wrong, never a crash deep in a run, and nothing is written;
// a journal cut short by a crash is read up to its last whole record, with a warning. Programs run in process (the
// previous good state and the command restoring it: state-backup.test.ts).
import { createHash } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PassphraseCrypter, StateError } from "../../provider/engine/index.ts";
import { Snapshot } from "../../provider/engine/snapshot.ts";
import type { ResourceState } from "../../provider/engine/state-file.ts";
import { runNotes } from "./notes-program.ts";
import { SECRET_SIG, SIG_KEY } from "../../provider/protocol/values.ts";

const PASSPHRASE = "state passphrase";
const dir = mkdtempSync(join(tmpdir(), "engine-state-"));
const file = join(dir, "dev.json");
let salt: string;
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeAll(async () => {
  salt = (await PassphraseCrypter.open(PASSPHRASE)).saltState;
});

function stateWith(resources: unknown[]): string {
  return JSON.stringify({ version: 3, deployment: { secrets_providers: { type: "passphrase", state: { salt } }, resources } });
}

describe("a damaged state file", () => {
  it("names the resource entry and member that are wrong", async () => {
    writeFileSync(file, stateWith([{ urn: "urn:pulumi:dev::notes::pulumi:pulumi:Stack::notes-dev", type: "pulumi:pulumi:Stack" }, null, { type: "x" }]));
    const error = await Snapshot.load(file, PASSPHRASE).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StateError);
    expect((error as Error).message).toMatch(/deployment\.resources\[1\]: .*expected object/);
    expect((error as Error).message).toMatch(/deployment\.resources\[2\]\.urn: .*expected string/);
  });

  it("names a wrong member of a resource otherwise written whole", async () => {
    const whole = (name: string) => ({ urn: `urn:pulumi:dev::notes::pulumi-nodejs:dynamic/notes:Note::${name}`, custom: true, type: "pulumi-nodejs:dynamic/notes:Note", id: name, inputs: {}, outputs: {}, dependencies: [] });
    for (const [member, value] of [["protect", "yes"], ["customTimeouts", { create: "1m" }], ["propertyDependencies", { text: [1] }], ["parent", null]] as const) {
      writeFileSync(file, stateWith([whole("a"), { ...whole("b"), [member]: value }]));
      await expect(Snapshot.load(file, PASSPHRASE)).rejects.toThrow(`deployment.resources[1].${member}`);
    }
  });

  it("gives a resource another tool wrote without them the members this engine always writes", async () => {
    writeFileSync(file, stateWith([{ urn: "urn:pulumi:dev::notes::pulumi:pulumi:Stack::notes-dev", type: "pulumi:pulumi:Stack", extra: 1 }]));
    const [stack] = (await Snapshot.load(file, PASSPHRASE)).resources;
    expect(stack).toEqual({ urn: "urn:pulumi:dev::notes::pulumi:pulumi:Stack::notes-dev", type: "pulumi:pulumi:Stack", custom: false, inputs: {}, outputs: {}, dependencies: [], extra: 1 });
  });

  it("names the resource whose secret cannot be opened", async () => {
    const urn = "urn:pulumi:dev::notes::pulumi-nodejs:dynamic/notes:Note::vault";
    const broken = { "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", ciphertext: "v1:abc:def" };
    writeFileSync(file, stateWith([{ urn, type: "pulumi-nodejs:dynamic/notes:Note", custom: true, id: "x", inputs: { text: broken } }]));
    await expect(Snapshot.load(file, PASSPHRASE)).rejects.toThrow(`${urn} inputs: malformed ciphertext`);
  });

  it("stops a run before the program starts, leaving the file as it was", async () => {
    const text = stateWith([{ urn: "not a urn", type: "x" }]);
    writeFileSync(file, text);
    const run = runNotes({ operation: "up", passphrase: PASSPHRASE, stateDir: dir, env: { NOTES_DIR: dir } });
    await expect(run).rejects.toThrow(/deployment\.resources\[0\]\.urn/);
    expect(readFileSync(file, "utf8")).toBe(text);
  });
});

describe("the journal of changes", () => {
  const resource = (name: string, text = "hello"): ResourceState => ({
    urn: `urn:pulumi:dev::notes::pulumi-nodejs:dynamic/notes:Note::${name}`, custom: true, type: "pulumi-nodejs:dynamic/notes:Note",
    id: `/notes/${name}`, inputs: { text }, outputs: { text, token: { [SIG_KEY]: SECRET_SIG, value: "s3cret" } }, dependencies: [],
  });
  const journalFile = () => `${file}.journal`;
  const names = (s: Snapshot) => s.resources.map((r) => r.urn.split("::").pop());

  it("a run that stops before compacting is read back whole, secrets sealed on disk, a torn last line ignored", async () => {
    rmSync(file, { force: true });
    const state = await Snapshot.load(file, PASSPHRASE, salt);
    await state.upsert(resource("one"));
    await state.upsert(resource("two"));
    const op = state.begin({ type: "creating", resource: { urn: resource("three").urn, type: resource("three").type, inputs: { text: "x" } } });
    await op.recorded;
    await state.upsert(resource("one", "changed"));
    await state.remove(state.find(resource("two").urn)!);
    expect(readFileSync(journalFile(), "utf8")).not.toContain("s3cret");
    appendFileSync(journalFile(), '{"put":{"urn":"urn:pul');

    const read = await Snapshot.load(file, PASSPHRASE);
    expect(names(read)).toEqual(["one"]);
    expect(read.find(resource("one").urn)?.inputs).toEqual({ text: "changed" });
    expect(read.find(resource("one").urn)?.outputs["token"]).toEqual({ [SIG_KEY]: SECRET_SIG, value: "s3cret" });
    expect(read.pending.map((p) => [p.type, p.resource.urn])).toEqual([["creating", resource("three").urn]]);
  });

  it("compacting writes the state file and drops the journal; the journal replayed again over it changes nothing", async () => {
    const journal = readFileSync(journalFile(), "utf8");
    const state = await Snapshot.load(file, PASSPHRASE);
    await state.compact();
    expect(existsSync(journalFile())).toBe(false);
    const compacted = await Snapshot.load(file, PASSPHRASE);
    // As after a crash between writing the state file and removing the journal.
    writeFileSync(journalFile(), journal);
    const replayed = await Snapshot.load(file, PASSPHRASE);
    for (const s of [compacted, replayed]) {
      expect(names(s)).toEqual(["one"]);
      expect(s.pending.map((p) => p.resource.urn)).toEqual([resource("three").urn]);
    }
  });

  it("a resource put again as the file would hold it, a member left undefined, writes nothing", async () => {
    rmSync(file, { force: true });
    rmSync(journalFile(), { force: true });
    const state = await Snapshot.load(file, PASSPHRASE, salt);
    await state.upsert(resource("one"));
    const before = readFileSync(journalFile(), "utf8");
    await state.upsert({ ...resource("one"), protect: undefined });
    expect(readFileSync(journalFile(), "utf8")).toBe(before);
    await state.upsert({ ...resource("one"), protect: true });
    expect(readFileSync(journalFile(), "utf8")).not.toBe(before);
  });

  it("what a step writes does not grow with the stack, and the state file is written only when compacting", async () => {
    rmSync(file, { force: true });
    rmSync(journalFile(), { force: true });
    const state = await Snapshot.load(file, PASSPHRASE, salt);
    const grown = async (name: string) => {
      const before = existsSync(journalFile()) ? statSync(journalFile()).size : 0;
      await state.upsert(resource(name));
      return statSync(journalFile()).size - before;
    };
    const first = await grown("n0000");
    const fileAfterFirst = readFileSync(file, "utf8");
    for (let i = 1; i < 500; i++) await state.upsert(resource(`n${String(i).padStart(4, "0")}`));
    // The same record but for its number: 501 takes two digits more than 1.
    expect(await grown("n9999")).toBe(first + 2);
    expect(readFileSync(file, "utf8")).toBe(fileAfterFirst);
    await state.compact();
    expect((await Snapshot.load(file, PASSPHRASE)).resources).toHaveLength(501);
  });
});

describe("a crash while the journal is written", () => {
  const journalFile = () => `${file}.journal`;
  const urnOf = (name: string) => `urn:pulumi:dev::notes::pulumi-nodejs:dynamic/notes:Note::${name}`;
  const note = (name: string): ResourceState => ({
    urn: urnOf(name), custom: true, type: "pulumi-nodejs:dynamic/notes:Note", id: `/notes/${name}`, inputs: { text: name }, outputs: { text: name }, dependencies: [],
  });

  it("ends a create and records its resource in one record", async () => {
    rmSync(file, { force: true });
    rmSync(journalFile(), { force: true });
    const state = await Snapshot.load(file, PASSPHRASE, salt);
    const op = state.begin({ type: "creating", startedAt: 1, resource: { urn: urnOf("made"), type: note("made").type, inputs: {} } });
    await op.recorded;
    await state.upsert(note("made"), { ends: op.id });
    const records = readFileSync(journalFile(), "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records.map((r) => Object.keys(r))).toEqual([["seq", "sum", "begin"], ["seq", "sum", "end", "put"]]);
    expect(records.map((r) => r["seq"])).toEqual([1, 2]);
  });

  it("warns of a torn last record, keeps the create it would have ended pending, and writes the next record on a line of its own", async () => {
    const whole = readFileSync(journalFile(), "utf8");
    const lastLine = whole.trimEnd().split("\n").at(-1)!;
    writeFileSync(journalFile(), whole.slice(0, whole.length - lastLine.length - 1 + 60));
    const read = await Snapshot.load(file, PASSPHRASE);
    expect(read.find(urnOf("made"))).toBeUndefined();
    expect(read.pending.map((p) => p.resource.urn)).toEqual([urnOf("made")]);
    expect(read.warnings).toEqual([expect.stringMatching(/its last record \(60 bytes\) was cut short by a crash and is not applied; it ended the create of .*::made, which stays pending/)]);
    // The run goes on: its next record replaces the torn one, and a later crash finds a whole journal.
    await read.upsert(note("after"));
    const again = await Snapshot.load(file, PASSPHRASE);
    expect(again.warnings).toEqual([]);
    expect(again.find(urnOf("after"))).toBeDefined();
  });

  it("takes a last record whole but for its line end, and ends it before the next", async () => {
    const whole = readFileSync(journalFile(), "utf8");
    writeFileSync(journalFile(), whole.trimEnd());
    const read = await Snapshot.load(file, PASSPHRASE);
    expect(read.warnings).toEqual([]);
    expect(read.find(urnOf("after"))).toBeDefined();
    await read.upsert(note("later"));
    const again = await Snapshot.load(file, PASSPHRASE);
    expect([urnOf("after"), urnOf("later")].map((u) => again.find(u)?.id)).toEqual(["/notes/after", "/notes/later"]);
  });
});

it("a state path that is a directory is named as such", async () => {
  const path = join(dir, "as-dir", "dev.json");
  mkdirSync(path, { recursive: true });
  await expect(Snapshot.load(path, PASSPHRASE)).rejects.toThrow(`${path} is a directory: the stack's state is kept in a file of that name`);
});

it("an exported state carries the manifest magic `pulumi stack import` checks: the SHA-256 of its version", async () => {
  const state = await Snapshot.parse(stateWith([]), { path: join(dir, "magic.json"), passphrase: PASSPHRASE });
  const { manifest } = (JSON.parse(state.export({ showSecrets: false })) as { deployment: { manifest: { magic: string; version: string } } }).deployment;
  expect(manifest.version).not.toBe("");
  expect(manifest.magic).toBe(createHash("sha256").update(manifest.version).digest("hex"));
});
