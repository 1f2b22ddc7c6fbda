// The SDKs generated from the plugin's schema build as each ecosystem builds them: Node.js under `tsc`, Python as a
// wheel that pip installs and Python imports, Go under `go build` and `go vet`.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { pulumiCli, skipReason } from "./cli.ts";
import { generatedSdk } from "./sdks.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const cli = pulumiCli();
const GO_ENV = { ...process.env, GOTOOLCHAIN: "local", GOFLAGS: "-mod=readonly" };

describe(`the SDKs generated from the plugin's schema${skipReason()}`, { timeout: 600_000 }, () => {
  if (!cli.dir) return;

  it("Node.js: tsc accepts the package, with @pulumi/pulumi as installed here", () => {
    const sdk = generatedSdk("nodejs");
    expect(JSON.parse(readFileSync(join(sdk, "package.json"), "utf8"))).toMatchObject({ name: "@pulumi-audience/sdk", version: "0.1.0" });
    // tsc from this checkout; @pulumi/pulumi and @types/node resolve from the folder's own node_modules link.
    execFileSync("ln", ["-s", join(ROOT, "node_modules"), join(sdk, "node_modules")]);
    execFileSync(join(ROOT, "node_modules", ".bin", "tsc"), ["-p", join(sdk, "tsconfig.json"), "--noEmit"], { encoding: "utf8" });
  });

  it("Python: a wheel that pip installs into a virtualenv and Python imports", () => {
    const sdk = generatedSdk("python");
    const work = mkdtempSync(join(tmpdir(), "sdk-python-build-"));
    onTestFinished(() => rmSync(work, { recursive: true, force: true }));
    execFileSync("python3", ["-m", "venv", join(work, "venv")]);
    const pip = join(work, "venv", "bin", "pip");
    execFileSync(pip, ["wheel", "--quiet", "--no-deps", "--wheel-dir", join(work, "wheels"), sdk]);
    const wheels = readdirSync(join(work, "wheels"));
    expect(wheels).toEqual(["pulumi_audience-0.1.0-py3-none-any.whl"]);
    execFileSync(pip, ["install", "--quiet", join(work, "wheels", wheels[0]!)]);
    const imported = execFileSync(join(work, "venv", "bin", "python"), ["-c", "import pulumi_audience as a; print(a.Scope.__name__, a.Target.__name__, a.get_cohort_output.__name__)"], { encoding: "utf8" });
    expect(imported.trim()).toBe("Scope Target get_cohort_output");
  });

  it("Go: a module on the CLI's sdk/v3 that go build and go vet accept", () => {
    const sdk = generatedSdk("go");
    const version = execFileSync(join(cli.dir!, "pulumi"), ["version"], { encoding: "utf8" }).trim();
    expect(readFileSync(join(sdk, "go.mod"), "utf8")).toContain(`github.com/pulumi/pulumi/sdk/v3 ${version}`);
    execFileSync("go", ["build", "./..."], { cwd: sdk, env: GO_ENV });
    execFileSync("go", ["vet", "./..."], { cwd: sdk, env: GO_ENV });
  });
});
