// A damaged state file is refused with the place that is wrong, never a crash deep in a run, and nothing is written.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PassphraseCrypter, runProgram, StateError } from "../../provider/engine/index.ts";
import { Snapshot } from "../../provider/engine/snapshot.ts";

const FIXTURE = join(import.meta.dirname, "fixtures", "notes");
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

  it("names the resource whose secret cannot be opened", async () => {
    const urn = "urn:pulumi:dev::notes::pulumi-nodejs:dynamic/notes:Note::vault";
    const broken = { "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", ciphertext: "v1:abc:def" };
    writeFileSync(file, stateWith([{ urn, type: "pulumi-nodejs:dynamic/notes:Note", custom: true, id: "x", inputs: { text: broken } }]));
    await expect(Snapshot.load(file, PASSPHRASE)).rejects.toThrow(`${urn} inputs: malformed ciphertext`);
  });

  it("stops a run before the program starts, leaving the file as it was", async () => {
    const text = stateWith([{ urn: "not a urn", type: "x" }]);
    writeFileSync(file, text);
    const run = runProgram({ cwd: FIXTURE, operation: "up", passphrase: PASSPHRASE, stateDir: dir, env: { NOTES_DIR: dir } });
    await expect(run).rejects.toThrow(/deployment\.resources\[0\]\.urn/);
    expect(readFileSync(file, "utf8")).toBe(text);
  });
});
