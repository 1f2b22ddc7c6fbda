// The package as npm installs it into a program is a plugin folder too (docs/plugin.md): `pulumi plugin install
// --file <it>` and `pulumi package add <it>` run `npm install` there, which runs its `prepare`. The installed package
// ships no build scripts (its dist/ is built), so `prepare` builds in a checkout only.
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { REPO_ROOT } from "./harness.ts";

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
