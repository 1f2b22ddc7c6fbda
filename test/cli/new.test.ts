// `audience new` as a first-time user meets it: the files of a program that runs at once, then up and destroy of
// that program against the emulator with the config set once through `audience config`.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { startEmulator, type RunningEmulator } from "pulumi-audience/emulator";
import { FIRST_PIPELINE } from "../../provider/cli/new.ts";
import { audience, ROOT } from "./helpers.ts";

const PASSPHRASE = "new program passphrase";
const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { engines: { node: string }; dependencies: Record<string, string> };
const parent = mkdtempSync(join(tmpdir(), "cli-new-"));
const dir = join(parent, "shop");
const env = { PULUMI_CONFIG_PASSPHRASE: PASSPHRASE };
const inProgram = (...args: string[]) => audience([...args, "--cwd", dir], { env });

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator({ host: "127.0.0.1" });
});
afterAll(async () => {
  await emulator.close();
  rmSync(parent, { recursive: true, force: true });
});

it("the README's first pipeline is the one a new program starts from", () => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const block = /## A first pipeline\n\n```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(block).toBe(FIRST_PIPELINE);
});

describe("audience new", () => {
  it("writes Pulumi.yaml, package.json, tsconfig.json and index.ts for this Node and this package", async () => {
    const r = await audience(["new", dir, "--generate-only"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Created shop in .*shop: Pulumi\.yaml, package\.json, tsconfig\.json, index\.ts, \.gitignore\n/);
    expect(r.stdout).toContain("audience config set --secret audience:apiKey <API_KEY>");
    const project = parse(readFileSync(join(dir, "Pulumi.yaml"), "utf8")) as { name: string; main: string; runtime: { name: string; options: { typescript: boolean; nodeargs: string } } };
    expect(project).toMatchObject({ name: "shop", main: "index.ts", runtime: { name: "nodejs", options: { typescript: false, nodeargs: "--require=pulumi-audience/require-node" } } });
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Record<string, unknown>;
    expect(pkg).toMatchObject({
      name: "shop",
      type: "module",
      engines: { node: manifest.engines.node },
      dependencies: { "@pulumi/pulumi": manifest.dependencies["@pulumi/pulumi"], "pulumi-audience": `file:${ROOT}` },
    });
    expect(readFileSync(join(dir, "index.ts"), "utf8")).toBe(FIRST_PIPELINE);
    expect(JSON.parse(readFileSync(join(dir, "tsconfig.json"), "utf8"))).toMatchObject({ compilerOptions: { module: "NodeNext", strict: true, noEmit: true } });
  });

  it("refuses a directory that is not empty, and a name Pulumi would not take", async () => {
    const r = await audience(["new", dir, "--generate-only"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: .*shop is not empty: name a new or empty directory \(see --help\)\n$/);
    const bad = await audience(["new", join(parent, "x"), "--name", "my shop", "--generate-only"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error: project name "my shop": allowed are letters/);
    expect(existsSync(join(parent, "x"))).toBe(false);
  });

  it("the new program goes up and is destroyed against the emulator, its config set once", { timeout: 180_000 }, async () => {
    // What `npm install` makes of the file: dependency, linked to this checkout and its packages.
    mkdirSync(join(dir, "node_modules"));
    symlinkSync(ROOT, join(dir, "node_modules", "pulumi-audience"));
    symlinkSync(join(ROOT, "node_modules", "@pulumi"), join(dir, "node_modules", "@pulumi"));
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
