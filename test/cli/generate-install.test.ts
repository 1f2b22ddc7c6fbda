// `audience generate --out` from an installed package (not published under its name: installed from a tarball, or
// a folder copied in), as a user runs it: the dependency it writes is the copy that runs, which npm resolves
// without the registry, and the next step it prints names that folder.
import { execFile } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "pulumi-audience/emulator";
import { installedModules } from "../engine/installed.ts";
import { linkDependencies, removeTemporaries, unpack } from "../provider/installed.ts";
import { ROOT, userEnv } from "./helpers.ts";

const run = promisify(execFile);
const { version } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
const TARBALL = `pulumi-audience-${version}.tgz`;
const dirs: string[] = [];
let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator({ host: "127.0.0.1" });
});
afterAll(async () => {
  await emulator.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  removeTemporaries();
});

/** A user's project with this package installed from its tarball, as npm leaves it (its hidden lockfile too). */
async function userProject(lockfile: boolean): Promise<string> {
  const project = mkdtempSync(join(tmpdir(), "generate-install-"));
  dirs.push(project);
  copyFileSync(join(dirname(await installedModules()), TARBALL), join(project, TARBALL));
  const modules = linkDependencies(project);
  renameSync(await unpack(join(project, TARBALL)), join(modules, "pulumi-audience"));
  rmSync(join(modules, ".package-lock.json"), { force: true }); // the checkout's, linked with its dependencies
  if (lockfile) {
    const packages = { "node_modules/pulumi-audience": { version, resolved: `file:${TARBALL}`, license: "MIT" } };
    writeFileSync(join(modules, ".package-lock.json"), JSON.stringify({ name: "user", lockfileVersion: 3, requires: true, packages }));
  }
  return project;
}

/** `audience generate --out gen` with the project's installed CLI; what it printed and the dependency it wrote. */
async function generate(project: string): Promise<{ stdout: string; dependency: string; out: string }> {
  const out = join(project, "gen");
  const { stdout } = await run(process.execPath, [join(project, "node_modules", "pulumi-audience", "bin", "audience.js"), "generate", "--out", out, "--only", "cohorts"], {
    cwd: project, env: userEnv({ AUDIENCE_API_KEY: emulator.apiKey, AUDIENCE_BASE_URL: `${emulator.url}/v1` }),
  });
  const manifest = JSON.parse(readFileSync(join(out, "package.json"), "utf8")) as { dependencies: Record<string, string> };
  return { stdout, dependency: manifest.dependencies["pulumi-audience"]!, out };
}

/** What npm makes of the dependency from the program's folder, offline: the package it would install. */
async function resolvedByNpm(out: string, dependency: string): Promise<{ name: string; version: string }> {
  const { stdout } = await run("npm", ["pack", "--dry-run", "--json", "--ignore-scripts", "--offline", dependency], { cwd: out, env: userEnv() });
  const [packed] = JSON.parse(stdout.slice(stdout.indexOf("["))) as { name: string; version: string }[];
  return { name: packed!.name, version: packed!.version };
}

describe("generate's next step from an installed package", { timeout: 300_000 }, () => {
  it("depends on the tarball the package was installed from, which npm finds without the registry", async () => {
    const project = await userProject(true);
    const { stdout, dependency, out } = await generate(project);
    expect(dependency).toBe(`file:../${TARBALL}`);
    // What the program needs before its first run: a stack, the account's URL (as it was read) and key as config,
    // then each credential it reads from secret config.
    expect(stdout).toContain(`then, to adopt the account:\n  cd ${out} && npm install\n  pulumi stack init dev\n`);
    expect(stdout).toMatch(/\n {2}pulumi config set audience:baseUrl http:\/\/\S+\/v1 {3}# or AUDIENCE_BASE_URL\n {2}pulumi config set --secret audience:apiKey '<KEY>' {3}# or AUDIENCE_API_KEY\n( {2}pulumi config set --secret \w+ '<the credential the service holds>'\n)* {2}pulumi preview\n$/);
    expect(await resolvedByNpm(out, dependency)).toEqual({ name: "pulumi-audience", version });
  });

  it("depends on the installed folder itself when no lockfile says where it came from", async () => {
    const project = await userProject(false);
    const { dependency, out } = await generate(project);
    expect(dependency).toBe("file:../node_modules/pulumi-audience");
    expect(await resolvedByNpm(out, dependency)).toEqual({ name: "pulumi-audience", version });
  });
});
