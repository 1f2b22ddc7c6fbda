// `npm run pulumi:install`: the Pulumi CLI, the Node.js, Python, Go, YAML and Java language hosts and `sdkgen`, built from the
// Go modules pinned in tools/ (go.sum verifies them), into a cache folder keyed by what goes into the build. A folder already built is
// found without running Go; a new build removes the others but the one used last (pulumi-cache.ts). The folder's path is the last line
// on stdout; progress goes to stderr.
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildFolder, markUsed, pruneBuilds, STAMP, stagingFolder } from "./pulumi-cache.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TOOLS = join(ROOT, "tools");

/**
 * One binary built from a tools module: the module folder under tools/ and the package its `tool` line names;
 * `version` is the Go variable a release build sets to the version of `module` the tools module requires.
 */
interface Build {
  readonly name: string;
  readonly module: string;
  readonly pkg: string;
  readonly version?: { readonly variable: string; readonly of: string };
}

const BUILDS: readonly Build[] = [
  {
    name: "pulumi",
    module: "pulumi",
    pkg: "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi",
    version: { variable: "github.com/pulumi/pulumi/sdk/v3/go/common/version.Version", of: "github.com/pulumi/pulumi/pkg/v3" },
  },
  // The schema's SDKs, by the code generators of the CLI's own pkg/v3 (see tools/pulumi/sdkgen).
  { name: "sdkgen", module: "pulumi", pkg: "./sdkgen" },
  // The current hosts' modules are not served by the module proxy: the Node.js, Python and Go hosts are built from
  // their source, kept in tools/ (see their READMEs).
  { name: "pulumi-language-nodejs", module: "pulumi-language-nodejs", pkg: "." },
  { name: "pulumi-language-python", module: "pulumi-language-python", pkg: "." },
  { name: "pulumi-language-go", module: "pulumi-language-go", pkg: "." },
  { name: "pulumi-language-yaml", module: "pulumi-yaml", pkg: "github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml" },
  // Its own module: pulumi-java/pkg v1.22.0 requires pulumi pkg/v3 v3.228.0, not the CLI's version. The proxy serves
  // only some of its tags (v1.22.0 is the newest it answers).
  {
    name: "pulumi-language-java",
    module: "pulumi-java",
    pkg: "github.com/pulumi/pulumi-java/pkg/cmd/pulumi-language-java",
    version: { variable: "github.com/pulumi/pulumi-java/pkg/version.Version", of: "github.com/pulumi/pulumi-java/pkg" },
  },
];
/** Scripts of the CLI's sdk/v3 that Pulumi ships beside its binaries (the module zip drops their run bit). */
const SCRIPTS: readonly { module: string; path: string }[] = [
  { module: "pulumi", path: "nodejs/dist/pulumi-resource-pulumi-nodejs" },
  { module: "pulumi", path: "python/cmd/pulumi-language-python-exec" },
  { module: "pulumi", path: "python/dist/pulumi-resource-pulumi-python" },
];
/** Pulumi's release flags (.goreleaser.yml): a static binary, no C toolchain. */
const TAGS = "osusergo,grpcnotrace";

const fail = (message: string): never => {
  process.stderr.write(`pulumi:install: ${message}\n`);
  process.exit(1);
};

/** The version of `path` that tools/`module`/go.mod requires. */
function requiredVersion(module: string, path: string): string {
  const mod = readFileSync(join(TOOLS, module, "go.mod"), "utf8");
  // `require path v1.2.3` or, inside a require block, `path v1.2.3`.
  const line = mod.split("\n").map((l) => l.trim().replace(/^require\s+/, "")).find((l) => l.startsWith(`${path} v`));
  return line?.split(/\s+/)[1] ?? fail(`tools/${module}/go.mod does not require ${path}`);
}

/** The pulumi/pulumi version the CLI's tools module requires, as the CLI prints it. */
function pinnedVersion(): string {
  return requiredVersion("pulumi", "github.com/pulumi/pulumi/pkg/v3");
}

/** The cache folder for this exact set of pins: a change to any go.mod or go.sum, or to the flags, is a new folder. */
function cacheFolder(): string {
  const hash = createHash("sha256");
  for (const module of new Set(BUILDS.map((b) => b.module))) {
    for (const file of ["go.mod", "go.sum"]) hash.update(readFileSync(join(TOOLS, module, file)));
  }
  // Go sources kept here rather than fetched as modules.
  for (const dir of ["pulumi/sdkgen", "pulumi-language-nodejs", "pulumi-language-python", "pulumi-language-go"]) {
    const files = readdirSync(join(TOOLS, dir), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".go")).sort();
    for (const file of files) hash.update(file).update(readFileSync(join(TOOLS, dir, file)));
  }
  hash.update(`${TAGS}\n${BUILDS.map((b) => `${b.module} ${b.pkg} ${b.version?.variable ?? ""}`).join("\n")}\n${SCRIPTS.map((s) => s.path).join("\n")}`);
  const root = process.env["AUDIENCE_PULUMI_CACHE"] ?? join(process.env["XDG_CACHE_HOME"] ?? join(homedir(), ".cache"), "pulumi-audience");
  return buildFolder(root, pinnedVersion(), hash.digest("hex"));
}

function goVersion(): string {
  const probe = spawnSync("go", ["version"], { encoding: "utf8", env: goEnv() });
  if (probe.error || probe.status !== 0) {
    return fail("needs Go 1.26 or newer on PATH to build the Pulumi CLI (https://go.dev/doc/install); users get `pulumi` from https://www.pulumi.com/docs/install/");
  }
  return probe.stdout.trim();
}

function goEnv(): NodeJS.ProcessEnv {
  // A build pinned by go.sum, on the machine's own Go, without cgo.
  return { ...process.env, CGO_ENABLED: "0", GOFLAGS: "-mod=readonly", GOTOOLCHAIN: "local" };
}

function build(into: string): void {
  for (const { name, module, pkg, version } of BUILDS) {
    const started = Date.now();
    process.stderr.write(`pulumi:install: building ${name} (tools/${module}) ...\n`);
    const args = ["build", "-trimpath", "-tags", TAGS, "-o", join(into, name)];
    if (version) args.push("-ldflags", `-X ${version.variable}=${requiredVersion(module, version.of)}`);
    const run = spawnSync("go", [...args, pkg], { cwd: join(TOOLS, module), env: goEnv(), stdio: ["ignore", "inherit", "inherit"] });
    if (run.status !== 0) fail(`go build of ${pkg} failed (exit ${run.status ?? run.signal}); its output is above`);
    process.stderr.write(`pulumi:install: built ${name} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  }
  for (const { module, path } of SCRIPTS) {
    const sdk = execFileSync("go", ["list", "-m", "-f", "{{.Dir}}", "github.com/pulumi/pulumi/sdk/v3"], { cwd: join(TOOLS, module), env: goEnv(), encoding: "utf8" }).trim();
    const target = join(into, path.split("/").at(-1)!);
    copyFileSync(join(sdk, path), target);
    chmodSync(target, 0o755);
  }
}

function main(): void {
  const folder = cacheFolder();
  if (!existsSync(join(folder, STAMP))) {
    const version = pinnedVersion();
    process.stderr.write(`pulumi:install: ${goVersion()}; building Pulumi ${version} into ${folder} (a few minutes the first time)\n`);
    // Built beside its final place and renamed into it, so that a folder with a stamp is always whole, and two
    // installs at once each finish (the second rename finds the folder already there).
    const staging = stagingFolder(folder, process.pid);
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    build(staging);
    writeFileSync(join(staging, STAMP), `${version}\n`);
    try {
      renameSync(staging, folder);
    } catch (error) {
      if (!existsSync(join(folder, STAMP))) throw error;
      rmSync(staging, { recursive: true, force: true });
    }
    const removed = pruneBuilds(folder);
    if (removed.length > 0) process.stderr.write(`pulumi:install: removed from the cache ${removed.join(", ")} (older builds and stopped installs; the build used last is kept)\n`);
  }
  markUsed(folder);
  process.stdout.write(`${folder}\n`);
}

main();
