// The account of a state's resources, from the stack's config beside its program: an encrypted key that no
// passphrase opens is said to be encrypted (and how to open it), not missing; `--accounts` may name the default one.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { accountResolver, inShard } from "../../provider/cli/drift/accounts.ts";
import { loadState } from "../../provider/cli/drift/states.ts";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "audience-drift-accounts-"));
  await writeFile(join(dir, "Pulumi.yaml"), "name: sealed-config\nruntime: nodejs\n");
  await writeFile(join(dir, "Pulumi.dev.yaml"), "encryptionsalt: v1:c2FsdA==:v1:AAAAAAAAAAAAAAAA:AAAA\nconfig:\n  audience:apiKey:\n    secure: v1:AAAAAAAAAAAAAAAA:AAAAAAAA\n  audience:baseUrl: https://service.example/v1\n");
  const cohort = { urn: "urn:pulumi:dev::sealed-config::pulumi-nodejs:dynamic/audience:Cohort::leads", custom: true, type: "pulumi-nodejs:dynamic/audience:Cohort", id: "c-1", inputs: { __kind: "cohorts", name: "Leads" }, outputs: { __kind: "cohorts", name: "Leads" } };
  await writeFile(join(dir, "dev.json"), JSON.stringify({ version: 3, deployment: { resources: [cohort] } }));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

it("an encrypted key without a passphrase is named encrypted, with what opens it", async () => {
  const state = await loadState(join(dir, "dev.json"), undefined);
  const { targets } = await accountResolver(undefined, undefined, {}).add(state);
  expect([...targets].map((t) => t.problem)).toEqual([
    `audience:apiKey in ${join(dir, "Pulumi.dev.yaml")} is encrypted and no passphrase opens it: set PULUMI_CONFIG_PASSPHRASE (or PULUMI_CONFIG_PASSPHRASE_FILE)`,
  ]);
});

it("an --accounts entry named default gives the default account's key and URL", async () => {
  const state = await loadState(join(dir, "dev.json"), undefined);
  const { targets } = await accountResolver({ default: { baseUrl: "https://other.example/v1", apiKey: "given-key" } }, undefined, {}).add(state);
  expect([...targets].map((t) => [t.name, t.baseUrl, t.credentials?.apiKey, t.problem])).toEqual([["default", "https://other.example/v1", "given-key", undefined]]);
});

it("spreads accounts of one name and URL over shards by their keys: every stack's default account is `default`", () => {
  const target = (apiKey: string) => ({ name: "default", baseUrl: "https://service.example/v1", credentials: { baseUrl: "https://service.example/v1", apiKey } });
  const shards = Array.from({ length: 16 }, (_, i) => [1, 2, 3, 4].find((index) => inShard(target(`aud_key_${i}`), index, 4)));
  expect(shards.every((shard) => shard !== undefined)).toBe(true);
  expect(new Set(shards).size).toBeGreaterThan(1);
});

it("a stack that manages nothing yet still has the account its config names read, for what no stack manages", async () => {
  // A first up whose only create failed unrecorded: the state holds the stack alone.
  const empty = await mkdtemp(join(tmpdir(), "audience-drift-empty-"));
  try {
    await writeFile(join(empty, "Pulumi.yaml"), "name: first-up\nruntime: nodejs\n");
    await writeFile(join(empty, "Pulumi.dev.yaml"), "config:\n  audience:apiKey: plain-key\n  audience:baseUrl: https://service.example/v1\n");
    const stack = { urn: "urn:pulumi:dev::first-up::pulumi:pulumi:Stack::first-up-dev", custom: false, type: "pulumi:pulumi:Stack" };
    await writeFile(join(empty, "stack.json"), JSON.stringify({ version: 3, deployment: { resources: [stack] } }));
    const { targets } = await accountResolver(undefined, undefined, {}).add(await loadState(join(empty, "stack.json"), undefined));
    expect([...targets].map((t) => [t.name, t.baseUrl, t.credentials?.apiKey, [...t.stacks]])).toEqual([["default", "https://service.example/v1", "plain-key", ["first-up/dev"]]]);
    // Without audience config beside it (another project's state), no account is read.
    await rm(join(empty, "Pulumi.dev.yaml"));
    expect((await accountResolver(undefined, undefined, {}).add(await loadState(join(empty, "stack.json"), undefined))).targets.size).toBe(0);
  } finally {
    await rm(empty, { recursive: true, force: true });
  }
});
