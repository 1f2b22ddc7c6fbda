// The package as npm installs it into a program (docs/plugin.md): a plugin through its `pulumi-resource-audience`
// executable, which runs on the program's node_modules, but no PulumiPlugin.yaml, so no Pulumi command (`pulumi
// package add <it>`, `pulumi plugin install --file <it>`) runs `npm install` in it, which would add the development
// tools and a second @pulumi/pulumi (test/pulumi/newest-pulumi.test.ts runs those commands). Its `prepare` builds in a
// checkout only, for whoever runs `npm install` there by hand: the installed package ships no build scripts.
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { REPO_ROOT } from "./harness.ts";

it("ships the plugin's executable and not PulumiPlugin.yaml, and @pulumi/pulumi as the program's (a peer)", () => {
  const [packed] = JSON.parse(execFileSync("npm", ["pack", "--dry-run", "--ignore-scripts", "--json"], { cwd: REPO_ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] })) as { files: { path: string }[] }[];
  const files = packed!.files.map((f) => f.path);
  expect(files).toEqual(expect.arrayContaining(["pulumi-resource-audience", "bin/pulumi-plugin.cjs", "package.json"]));
  expect(files).not.toContain("PulumiPlugin.yaml");
  const manifest = JSON.parse(execFileSync("npm", ["pkg", "get", "dependencies", "peerDependencies", "--json"], { cwd: REPO_ROOT, encoding: "utf8" })) as { dependencies: Record<string, string>; peerDependencies: Record<string, string> };
  expect(manifest.dependencies).not.toHaveProperty("@pulumi/pulumi");
  expect(manifest.peerDependencies["@pulumi/pulumi"]).toMatch(/^\^3\.\d+\.\d+$/);
});

it("runs its prepare script without the checkout's scripts, building nothing", () => {
  const dir = mkdtempSync(join(tmpdir(), "audience-installed-"));
  try {
    copyFileSync(join(REPO_ROOT, "package.json"), join(dir, "package.json"));
    execFileSync("npm", ["run", "--silent", "prepare"], { cwd: dir, stdio: "pipe" });
    expect(existsSync(join(dir, "dist"))).toBe(false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
