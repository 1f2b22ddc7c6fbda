// `audience new` as a first-time user meets it: the files of a program that runs at once, then up and destroy of
// that program against the emulator with the config set once through `audience config`.
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { startEmulator, type RunningEmulator } from "pulumi-audience/emulator";
import { FIRST_PIPELINE } from "../../provider/cli/new.ts";
import { linkDependencies, removeTemporaries, unpack } from "../provider/installed.ts";
import { audience, ROOT } from "./helpers.ts";

const PASSPHRASE = "new program passphrase";
const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string; engines: { node: string }; peerDependencies: Record<string, string> };
const tarball = `pulumi-audience-${manifest.version}.tgz`;
const parent = mkdtempSync(join(tmpdir(), "cli-new-"));
const dir = join(parent, "shop");
const env = { PULUMI_CONFIG_PASSPHRASE: PASSPHRASE };
// The command as installed, so that the program loads pulumi-audience from its own node_modules as under the Pulumi CLI.
const inProgram = (...args: string[]) => audience([...args, "--cwd", dir], { env });

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator({ host: "127.0.0.1" });
});
afterAll(async () => {
  await emulator.close();
  rmSync(parent, { recursive: true, force: true });
  removeTemporaries();
});

it("the README's first pipeline is the one a new program starts from", () => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const block = /## A first pipeline\n\n```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(block).toBe(FIRST_PIPELINE);
});

describe("audience new", () => {
  it("writes Pulumi.yaml, package.json, tsconfig.json and index.ts for this Node and this package", { timeout: 420_000 }, async () => {
    // From a checkout: the checkout packed into the program (npm pack builds it first, which takes a while).
    const r = await audience(["new", dir, "--generate-only"], { timeoutMs: 400_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Created shop in .*shop: Pulumi\.yaml, package\.json, tsconfig\.json, index\.ts, \.gitignore\n/);
    for (const step of ["npx audience config set audience:baseUrl https://<service>/v1", "npx audience config set --secret audience:apiKey <API_KEY>", "npx audience run preview"]) {
      expect(r.stdout).toContain(`    ${step}`);
    }
    expect(r.stdout).toContain(`pulumi-audience is ${tarball}, the checkout ${ROOT} packed`);
    const project = parse(readFileSync(join(dir, "Pulumi.yaml"), "utf8")) as { name: string; main: string; runtime: { name: string; options: { typescript: boolean; nodeargs: string } } };
    expect(project).toMatchObject({ name: "shop", main: "index.ts", runtime: { name: "nodejs", options: { typescript: false, nodeargs: "--require=pulumi-audience/require-node" } } });
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Record<string, unknown>;
    expect(pkg).toMatchObject({
      name: "shop",
      type: "module",
      engines: { node: manifest.engines.node },
      // A path inside the program, which npm ci installs on any machine (an absolute path names this one's).
      // The @pulumi/pulumi versions the package supports, which it then shares with the program.
      dependencies: { "@pulumi/pulumi": manifest.peerDependencies["@pulumi/pulumi"], "pulumi-audience": `file:./${tarball}` },
    });
    expect(existsSync(join(dir, tarball))).toBe(true);
    expect(readFileSync(join(dir, "index.ts"), "utf8")).toBe(FIRST_PIPELINE);
    const tsconfig = JSON.parse(readFileSync(join(dir, "tsconfig.json"), "utf8")) as { compilerOptions: Record<string, unknown> };
    expect(tsconfig).toMatchObject({ compilerOptions: { module: "NodeNext", strict: true, noEmit: true } });
    expect(tsconfig.compilerOptions["customConditions"]).toBeUndefined();
  });

  it("refuses a directory that is not empty, a file, and a name Pulumi would not take", async () => {
    const r = await audience(["new", dir, "--generate-only"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: .*shop is not empty: name a new or empty directory \(see --help\)\n$/);
    const file = join(dir, "package.json");
    const onFile = await audience(["new", file, "--generate-only"]);
    expect(onFile.code).toBe(2);
    expect(onFile.stderr).toBe(`error: ${file} is a file: name a new or empty directory (see --help)\n`);
    const bad = await audience(["new", join(parent, "x"), "--name", "my shop", "--generate-only"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error: project name "my shop": allowed are letters/);
    expect(existsSync(join(parent, "x"))).toBe(false);
  });

  it("the new program goes up and is destroyed against the emulator, its config set once", { timeout: 180_000 }, async () => {
    // What `npm install` makes of the dependency: the tarball unpacked into node_modules, next to its dependencies
    // (linked to this checkout's).
    renameSync(await unpack(join(dir, tarball)), join(linkDependencies(dir), "pulumi-audience"));
    expect((await inProgram("config", "set", "audience:baseUrl", `${emulator.url}/v1`)).code).toBe(0);
    expect((await inProgram("config", "set", "--secret", "audience:apiKey", emulator.apiKey)).code).toBe(0);
    expect(readFileSync(join(dir, "Pulumi.dev.yaml"), "utf8")).not.toContain(emulator.apiKey);

    const up = await inProgram("run", "up", "--yes");
    expect(up.code, up.stderr).toBe(0);
    expect(up.stdout).toMatch(/^\+ +created +audience:Scope +adaptive-discounting\b/m);
    expect(up.stdout).toMatch(/^\+ +created +audience:Target +adaptive-discounting-csv\b/m);
    const csvUrl = await inProgram("stack", "output", "csvUrl");
    expect(csvUrl.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\S+\n$/);
    const state = JSON.parse((await inProgram("stack", "export")).stdout) as { deployment: { resources: { type: string; id?: string }[] } };
    const scopeId = state.deployment.resources.find((r) => r.type.endsWith("audience:Scope"))?.id;
    const scope = () => fetch(`${emulator.url}/v1/scopes/${scopeId}`, { headers: { authorization: `Bearer ${emulator.apiKey}` } });
    expect((await scope()).status).toBe(200);

    const destroy = await inProgram("run", "destroy", "--yes");
    expect(destroy.code, destroy.stderr).toBe(0);
    expect((await scope()).status).toBe(404);
  });
});
