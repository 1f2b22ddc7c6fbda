// Reading a state: where each resource is declared, in each form Pulumi records; a resource whose family is named by
// a word every plain object knows (`constructor`, `toString`) is no family of this provider, so drift leaves it out
// and the lifecycle refuses it, instead of crashing on what a prototype holds.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadState } from "../../provider/cli/drift/states.ts";
import { PassphraseCrypter } from "../../provider/engine/secrets.ts";
import { SECRET_SIG, SIG_KEY } from "../../provider/protocol/markers.ts";
import { familyOf } from "../../provider/runtime/families/index.ts";
import { providerModule } from "../../provider/runtime/resources/shim.ts";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "audience-drift-states-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const resource = (kind: string, name: string) => ({
  urn: `urn:pulumi:dev::fleet::pulumi-nodejs:dynamic/audience:Cohort::${name}`,
  custom: true,
  type: "pulumi-nodejs:dynamic/audience:Cohort",
  id: `id-${name}`,
  inputs: { __kind: kind, name },
  outputs: { __kind: kind, name },
});

describe("a resource whose family name is a prototype's member", () => {
  it("is left out of the state drift reads, and the other resources are kept", async () => {
    const file = join(dir, "dev.json");
    await writeFile(file, JSON.stringify({ version: 3, deployment: { resources: [resource("constructor", "odd"), resource("toString", "odder"), resource("cohorts", "leads")] } }));
    const state = await loadState(file, undefined);
    expect(state.resources.map((r) => [r.name, r.collection])).toEqual([["leads", "cohorts"]]);
  });

  it("is refused by the lifecycle with the families it knows", () => {
    for (const name of ["constructor", "toString", "__proto__"]) expect(() => familyOf(name)).toThrow(/unknown resource family .*this provider knows scopes, /);
  });
});

describe("what a state's resource keeps", () => {
  it("keeps of its outputs only what the first comparison reads, and reads the whole outputs again when asked", async () => {
    const file = join(dir, "kept.json");
    const outputs = { __kind: "cohorts", name: "leads", deletionMode: "archive", status: "ready", size: 12, members: [{ id: "m1" }] };
    await writeFile(file, JSON.stringify({ version: 3, deployment: { resources: [{ ...resource("cohorts", "leads"), outputs }] } }));
    const [leads] = (await loadState(file, undefined)).resources;
    expect(leads!.recorded).toEqual({ deletionMode: "archive" });
    expect(await leads!.outputs()).toEqual(outputs);
  });
});

describe("a resource whose inputs name its family by their shim alone", () => {
  it("is this provider's (a program's `.get()` records the inputs it registered: no `__kind`)", async () => {
    const file = join(dir, "read.json");
    const read = { ...resource("cohorts", "seen"), inputs: { __provider: providerModule("cohorts") }, external: true };
    await writeFile(file, JSON.stringify({ version: 3, deployment: { resources: [read] } }));
    const [seen] = (await loadState(file, undefined)).resources;
    expect([seen?.collection, seen?.external]).toEqual(["cohorts", true]);
  });
});

describe("where a resource is declared", () => {
  it("reads each form of source position Pulumi records, and names no file where the program is not found", async () => {
    const file = join(dir, "positions.json");
    // A project no program in this checkout has.
    const at = (name: string, sourcePosition: string) => ({ ...resource("cohorts", name), urn: `urn:pulumi:dev::positioned::pulumi-nodejs:dynamic/audience:Cohort::${name}`, sourcePosition });
    await writeFile(file, JSON.stringify({ version: 3, deployment: { resources: [
      at("relative", "project:///index.ts#4,7"),
      // What the Pulumi CLI records for a program run as an ES module.
      at("module", "project:///file:/work/shop/index.ts#6,15"),
      at("absolute", "file:///work/shop/main.ts#9"),
    ] } }));
    const byName = Object.fromEntries((await loadState(file, undefined)).resources.map((r) => [r.name, r.declaredAt]));
    // No program of the project above the state or below this directory: a relative position names no file.
    expect(byName).toEqual({
      relative: undefined,
      module: { file: "/work/shop/index.ts", line: 6, column: 15 },
      absolute: { file: "/work/shop/main.ts", line: 9, column: 1 },
    });
    await writeFile(join(dir, "Pulumi.yaml"), "name: positioned\nruntime: nodejs\n");
    const [relative] = (await loadState(file, undefined)).resources;
    expect(relative?.declaredAt).toEqual({ file: join(dir, "index.ts"), line: 4, column: 7 });
  });
});

describe("a ciphertext damaged in one resource", () => {
  it("leaves that member sealed with the reason; the other secrets of the state open", async () => {
    const crypter = await PassphraseCrypter.open("fleet passphrase");
    const sealed = (value: unknown) => ({ [SIG_KEY]: SECRET_SIG, ciphertext: crypter.encrypt(JSON.stringify(value)) });
    const damaged = { ...sealed("kept-pw"), ciphertext: `${sealed("kept-pw").ciphertext.slice(0, -4)}AAAA` };
    const connection = (name: string, password: unknown) => ({
      urn: `urn:pulumi:dev::fleet::pulumi-nodejs:dynamic/audience:Connection::${name}`,
      custom: true,
      type: "pulumi-nodejs:dynamic/audience:Connection",
      id: `id-${name}`,
      inputs: { __kind: "connections", name, options: { type: "postgres", host: "h", port: 5432, database: "d", schema: "s", user: "u", password } },
      outputs: { __kind: "connections", name },
    });
    const file = join(dir, "damaged.json");
    const secrets = { type: "passphrase", state: { salt: crypter.saltState } };
    await writeFile(file, JSON.stringify({ version: 3, deployment: { secrets_providers: secrets, resources: [connection("whole", sealed("open-pw")), connection("broken", damaged)] } }));
    const state = await loadState(file, "fleet passphrase");
    const byName = Object.fromEntries(state.resources.map((r) => [r.name, r]));
    expect(byName["whole"]).toMatchObject({ sealed: [], inputs: { options: { password: "open-pw" } } });
    expect(byName["broken"]!.sealed).toEqual([{ path: "options.password", reason: expect.stringMatching(/cannot decrypt a secret/) }]);
  });
});
