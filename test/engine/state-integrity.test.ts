// Damage to a state is found, never acted on: an id changed by hand (still a valid uuid), an entry removed with the
// JSON still valid, random edits, a state file deleted beside its journal, and a journal record damaged, missing or
// repeated. Each is refused with a message that says what is wrong (never "wrong passphrase"), before any request.
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { StateError } from "../../provider/engine/index.ts";
import { Snapshot } from "../../provider/engine/snapshot.ts";
import type { ResourceState } from "../../provider/engine/state-file.ts";
import { makeSecret } from "../../provider/protocol/values.ts";
import { random } from "./seeded-random.ts";

const PASSPHRASE = "integrity passphrase";
const dir = mkdtempSync(join(tmpdir(), "engine-integrity-"));
const file = join(dir, "dev.json");
const journal = `${file}.journal`;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TYPE = "pulumi-nodejs:dynamic/audience:Cohort";
const cohort = (i: number): ResourceState => ({
  urn: `urn:pulumi:dev::integrity::${TYPE}::cohort-${i}`, custom: true, type: TYPE, id: randomUUID(),
  inputs: { name: `Cohort ${i}`, key: makeSecret(`secret-${i}`) }, outputs: { name: `Cohort ${i}` }, dependencies: [],
});

/** A state file of 12 resources written whole, and (with `journalled`) 4 more recorded in its journal only. */
async function written({ journalled = false } = {}): Promise<void> {
  rmSync(file, { force: true });
  rmSync(journal, { force: true });
  const state = await Snapshot.load(file, PASSPHRASE);
  for (let i = 0; i < 12; i++) await state.upsert(cohort(i));
  await state.compact();
  if (journalled) for (let i = 12; i < 16; i++) await state.upsert(cohort(i));
  await state.close();
}

/** What loading says: the message it is refused with, or "accepted". */
async function verdict(): Promise<string> {
  try {
    const state = await Snapshot.load(file, PASSPHRASE);
    await state.close();
    return "accepted";
  } catch (e) {
    expect(e).toBeInstanceOf(StateError);
    return (e as Error).message;
  }
}

describe("a state file edited or damaged", () => {
  beforeEach(() => written());

  it("with one character of an id changed (still a valid uuid) is refused, naming the checksum", async () => {
    const text = readFileSync(file, "utf8");
    const doc = JSON.parse(text) as { deployment: { resources: { id: string }[] } };
    const id = doc.deployment.resources[3]!.id;
    const changed = `${id.slice(0, -1)}${id.endsWith("0") ? "1" : "0"}`;
    writeFileSync(file, text.replace(id, changed));
    const message = await verdict();
    expect(message).toContain("the state does not match the checksum written with it: it was edited or damaged since");
    expect(message).toContain("audience stack import");
    expect(message).not.toMatch(/wrong passphrase|corrupted ciphertext/);
  });

  it("with one entry removed, the JSON still valid, is refused", async () => {
    const doc = JSON.parse(readFileSync(file, "utf8")) as { integrity: unknown; deployment: { resources: unknown[] } };
    doc.deployment.resources.splice(5, 1);
    writeFileSync(file, `${JSON.stringify({ version: 3, integrity: doc.integrity, deployment: doc.deployment })}\n`);
    expect(await verdict()).toContain("does not match the checksum");
  });

  it("with one entry removed and the checksum with it is refused: this engine wrote it, and always writes one", async () => {
    const doc = JSON.parse(readFileSync(file, "utf8")) as { deployment: { resources: unknown[] } };
    doc.deployment.resources.splice(5, 1);
    writeFileSync(file, `${JSON.stringify({ version: 3, deployment: doc.deployment })}\n`);
    const message = await verdict();
    expect(message).toContain("the state has no checksum, though this engine wrote it with one: it was edited or replaced by hand");
    expect(message).toContain("audience stack import");
  });

  it("at 20 random places is refused each time, never accepted, never taken for a wrong passphrase", async () => {
    const text = readFileSync(file, "utf8");
    const next = random(20261128);
    const outcomes = { refused: 0, accepted: 0, passphrase: 0 };
    for (let n = 0; n < 20; n++) {
      const at = Math.floor(next() * (text.length - 1)); // the last newline is no content
      const was = text[at]!;
      const pool = "0123456789abcdefxyz\"{}[],:";
      let now = pool[Math.floor(next() * pool.length)]!;
      if (now === was) now = was === "0" ? "1" : "0";
      writeFileSync(file, text.slice(0, at) + now + text.slice(at + 1));
      const message = await verdict();
      if (message === "accepted") outcomes.accepted++;
      else if (/wrong passphrase|corrupted ciphertext/.test(message)) outcomes.passphrase++;
      else outcomes.refused++;
    }
    console.info(`random state edits: ${outcomes.refused} of 20 refused with a message, ${outcomes.accepted} accepted, ${outcomes.passphrase} taken for a passphrase`);
    expect(outcomes).toEqual({ refused: 20, accepted: 0, passphrase: 0 });
  });
});

describe("a state file deleted beside its journal", () => {
  it("is refused as missing, not as a wrong passphrase", async () => {
    await written({ journalled: true });
    rmSync(file);
    const message = await verdict();
    expect(message).toContain(`${file} is missing, but its journal ${journal} is there`);
    expect(message).toContain("audience stack restore");
    expect(message).not.toMatch(/wrong passphrase|corrupted ciphertext/);
  });
});

describe("a journal with a record damaged, missing or repeated", () => {
  const lines = () => readFileSync(journal, "utf8").trimEnd().split("\n");
  beforeEach(() => written({ journalled: true }));

  it("is read whole when nothing is wrong", async () => {
    expect(await verdict()).toBe("accepted");
    expect((await Snapshot.load(file, PASSPHRASE)).resources).toHaveLength(16);
  });

  it("with a record whose content changed is refused, naming the record", async () => {
    const all = lines();
    all[1] = all[1]!.replace("cohort-13", "cohort-99");
    writeFileSync(journal, `${all.join("\n")}\n`);
    expect(await verdict()).toContain(`${journal}, record 2: its checksum does not match what it holds`);
  });

  it("with a record missing from the middle is refused, naming how many", async () => {
    const all = lines();
    all.splice(1, 1);
    writeFileSync(journal, `${all.join("\n")}\n`);
    expect(await verdict()).toMatch(/record 2: number 15 follows 13: 1 record is missing/);
  });

  it("with a record repeated is refused", async () => {
    const all = lines();
    writeFileSync(journal, `${[...all, all[2]].join("\n")}\n`);
    expect(await verdict()).toMatch(/record 5: number \d+ comes twice/);
  });

  it("from before the state file was last written is applied no more (its records are in the file)", async () => {
    const before = readFileSync(journal, "utf8");
    const state = await Snapshot.load(file, PASSPHRASE);
    await state.compact();
    writeFileSync(journal, before);
    const again = await Snapshot.load(file, PASSPHRASE);
    expect(again.resources).toHaveLength(16);
  });
});
