// `audience demo` from an installed package, as a user who ran `npm install <the package's tarball>` meets it, with
// the real `pulumi` CLI on PATH: the example runs from outside node_modules, every step passes, and the next step it
// prints (`npx audience new shop`) runs.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { installedModules } from "../engine/installed.ts";
import { pulumiCli, skipReason } from "../pulumi/cli.ts";

const cli = pulumiCli();
const work = mkdtempSync(join(tmpdir(), "installed-demo-"));
// Two installations (the user's project and the program `audience new` made): slow to remove on a busy machine.
afterAll(() => rm(work, { recursive: true, force: true }), 300_000);

describe(`audience demo from an installed package${skipReason()}`, { timeout: 300_000 }, () => {
  if (!cli.dir) return;

  it("deploys, enables, reads, finds drift and destroys through pulumi; its printed next step runs", async () => {
    // The tarball the shared installation was unpacked from; its dependencies come from npm's cache.
    const packed = dirname(await installedModules());
    const tarball = join(packed, readdirSync(packed).find((f) => f.endsWith(".tgz"))!);
    const env = {
      ...process.env, PATH: [cli.dir, dirname(process.execPath), process.env["PATH"] ?? ""].join(delimiter), NO_COLOR: "1", NODE_OPTIONS: "",
      PULUMI_HOME: join(work, "home"), PULUMI_SKIP_UPDATE_CHECK: "true", npm_config_prefer_offline: "true", npm_config_audit: "false", npm_config_fund: "false",
    };
    writeFileSync(join(work, "package.json"), JSON.stringify({ name: "team-infra", private: true, type: "module" }));
    execFileSync("npm", ["install", tarball], { cwd: work, env, stdio: "ignore" });
    const bin = join(work, "node_modules", "pulumi-audience", "bin", "audience.js");
    const demo = spawnSync(process.execPath, [bin, "demo"], { cwd: work, env, encoding: "utf8", timeout: 240_000 });
    const output = `${demo.stdout}${demo.stderr}`;
    expect(demo.status, output).toBe(0);
    expect(output).toContain(`with pulumi (${join(cli.dir!, "pulumi")})`);
    expect(output).toMatch(/The account is empty again \(0 scopes\)/);
    expect(output).not.toMatch(/examples\/adaptive-discounting not found|demo stopped/);

    const next = /`(npx audience new shop)`/.exec(output)?.[1];
    expect(next).toBe("npx audience new shop");
    execFileSync(process.execPath, [bin, "new", "shop"], { cwd: work, env, stdio: "ignore" });
    expect(existsSync(join(work, "shop", "index.ts"))).toBe(true);
  });
});
