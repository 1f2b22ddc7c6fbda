// `npm run sdk:gen [-- <language>...]`: the audience package's SDKs for Node.js, Python and Go, generated from the
// schema the plugin serves (read through `pulumi package get-schema`) into sdks/<language>, with the code generators
// of the CLI's own version (tools/pulumi/sdkgen). Go's module is pinned to the CLI's github.com/pulumi/pulumi/sdk/v3.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const LANGUAGES = ["nodejs", "python", "go"] as const;
export type Language = (typeof LANGUAGES)[number];

const fail = (message: string): never => {
  throw new Error(`sdk:gen: ${message}`);
};

/** The folder `npm run pulumi:install` built (building it first if needed). */
function cliFolder(): string {
  const install = spawnSync(process.execPath, [join(ROOT, "scripts", "pulumi-install.ts")], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  if (install.status !== 0) fail("npm run pulumi:install failed; its output is above");
  return install.stdout.trim().split("\n").at(-1)!;
}

/** The pulumi/pulumi version the CLI was built at (`v3.274.1`). */
function cliVersion(cli: string): string {
  return execFileSync(join(cli, "pulumi"), ["version"], { encoding: "utf8" }).trim();
}

/** Writes sdks/<language> for each language asked for and returns the folders. */
export function generate(languages: readonly Language[], out = join(ROOT, "sdks")): Record<Language, string> {
  const cli = cliFolder();
  const home = mkdtempSync(join(tmpdir(), "sdk-gen-home-"));
  const env = { ...process.env, PATH: [cli, dirname(process.execPath), process.env["PATH"] ?? ""].join(delimiter), PULUMI_HOME: home, PULUMI_SKIP_UPDATE_CHECK: "true" };
  try {
    // The plugin as a user's CLI runs it: the package's executable, answering GetSchema.
    const schema = execFileSync(join(cli, "pulumi"), ["package", "get-schema", join(ROOT, "pulumi-resource-audience")], { env, encoding: "utf8", maxBuffer: 64 << 20 });
    mkdirSync(out, { recursive: true });
    const schemaFile = join(out, "schema.json");
    writeFileSync(schemaFile, schema);
    const folders = {} as Record<Language, string>;
    for (const language of languages) {
      const started = Date.now();
      const folder = join(out, language);
      rmSync(folder, { recursive: true, force: true });
      const gen = spawnSync(join(cli, "sdkgen"), [schemaFile, language, folder], { stdio: ["ignore", "inherit", "inherit"] });
      if (gen.status !== 0) fail(`sdkgen ${language} exited ${gen.status ?? gen.signal}; its output is above`);
      if (language === "go") pinGoModule(folder, cliVersion(cli));
      process.stderr.write(`sdk:gen: ${language} in ${folder} (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
      folders[language] = folder;
    }
    return folders;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** The generator writes the sdk/v3 it was released with; the SDK takes the CLI's, and a go.sum to build with. */
function pinGoModule(folder: string, version: string): void {
  const env = { ...process.env, GOTOOLCHAIN: "local", GOFLAGS: "-mod=mod" };
  execFileSync("go", ["mod", "edit", `-require=github.com/pulumi/pulumi/sdk/v3@${version}`], { cwd: folder, env });
  execFileSync("go", ["mod", "tidy"], { cwd: folder, env, stdio: ["ignore", "ignore", "inherit"] });
  if (!readFileSync(join(folder, "go.mod"), "utf8").includes(`github.com/pulumi/pulumi/sdk/v3 ${version}`)) fail(`go.mod of the Go SDK does not require sdk/v3 ${version}`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    const asked = process.argv.slice(2);
    const unknown = asked.filter((l) => !(LANGUAGES as readonly string[]).includes(l));
    if (unknown.length > 0) fail(`unknown language ${unknown.join(", ")}: one of ${LANGUAGES.join(", ")}`);
    const folders = generate(asked.length > 0 ? (asked as Language[]) : LANGUAGES);
    for (const folder of Object.values(folders)) process.stdout.write(`${folder}\n`);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exitCode = 1;
  }
}
