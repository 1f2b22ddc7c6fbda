// The SDKs generated from the plugin's schema build as each ecosystem builds them: Node.js under `tsc`, Python as a
// wheel that pip installs and Python imports, Go under `go build` and `go vet` (and as `pulumi package add` links it
// into a program), Java under Maven.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { pulumiCli, pulumiStack, skipReason } from "./cli.ts";
import { GO_ENV as PROGRAM_GO_ENV } from "./go-program.ts";
import { generatedSdk } from "./sdks.ts";
import { JAVA_SDK_VERSION } from "../../scripts/sdk-gen.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const cli = pulumiCli();
// The programs' Go environment (go-program.ts), whose -trimpath lets the build cache serve this file's fresh SDK folder.
const GO_ENV = { ...process.env, ...PROGRAM_GO_ENV, GOFLAGS: `-mod=readonly ${PROGRAM_GO_ENV.GOFLAGS}` };

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

  it("Go: pulumi package add of the plugin generates the SDK through the Go host and links it into the program", async () => {
    const stack = await pulumiStack({ program: join(ROOT, "examples", "other-languages", "adaptive-discounting-go"), env: PROGRAM_GO_ENV });
    const goMod = join(stack.dir, "go.mod");
    // The example points at the checkout's sdks/go; a program elsewhere has no SDK yet.
    writeFileSync(goMod, readFileSync(goMod, "utf8").replace(/^replace .*$/m, ""));
    await stack.must(["package", "add", join(ROOT, "pulumi-resource-audience")]);
    expect(readFileSync(goMod, "utf8")).toContain("replace github.com/pulumi-audience/pulumi-audience/sdk/go => ./sdks/audience");
    expect(readFileSync(join(stack.dir, "Pulumi.yaml"), "utf8")).toMatch(/^packages:\n {2}audience: audience@0\.1\.0$/m);
    execFileSync("go", ["build", "-o", "/dev/null", "."], { cwd: stack.dir, env: { ...process.env, ...PROGRAM_GO_ENV } });
  });

  it("Java: a jar Maven builds on com.pulumi:pulumi, holding the resources the SDK reads at run time", () => {
    const sdk = generatedSdk("java");
    expect(readFileSync(join(sdk, "pom.xml"), "utf8")).toContain(`<version>${JAVA_SDK_VERSION}</version>`);
    // Online the first time (Maven Central), into the default ~/.m2, which later runs find warm. `package`, not
    // `install`: the shared ~/.m2 is java.test.ts's to write.
    const build = spawnSync("mvn", ["-B", "-q", "--no-transfer-progress", "package"], { cwd: sdk, encoding: "utf8" });
    expect(build.status, build.stdout + build.stderr).toBe(0);
    const jar = join(sdk, "target", "audience-0.1.0.jar");
    const entries = execFileSync("jar", ["tf", jar], { encoding: "utf8" }).split("\n");
    expect(entries).toEqual(expect.arrayContaining(["com/pulumiaudience/audience/Scope.class", "com/pulumiaudience/audience/version.txt", "com/pulumiaudience/audience/plugin.json"]));
    // Java keeps the schema's operator names: `$` is legal in a Java identifier.
    const builder = execFileSync("javap", ["-cp", jar, "com.pulumiaudience.audience.inputs.CohortStreamConditionsArgs$Builder"], { encoding: "utf8" });
    expect(builder).toContain("$gte(java.lang.Double)");
    expect(builder).toContain("$onOrAfter(java.lang.String)");
  });
});
