// `npm run sdk:gen [-- <language>...]`: the audience package's SDKs for Node.js, Python, Go and Java, generated from
// the schema the plugin serves (read through `pulumi package get-schema`) into sdks/<language>, with the code
// generators of the CLI's own version (tools/pulumi/sdkgen), Java's by `pulumi package gen-sdk` through its language
// host. Go's module is pinned to the CLI's github.com/pulumi/pulumi/sdk/v3; Java gets a Maven pom.xml.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const LANGUAGES = ["nodejs", "python", "go", "java"] as const;
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
      if (language === "java") generateJava(cli, env, schemaFile, folder);
      else {
        const gen = spawnSync(join(cli, "sdkgen"), [schemaFile, language, folder], { stdio: ["ignore", "inherit", "inherit"] });
        if (gen.status !== 0) fail(`sdkgen ${language} exited ${gen.status ?? gen.signal}; its output is above`);
      }
      if (language === "go") pinGoModule(folder, cliVersion(cli));
      process.stderr.write(`sdk:gen: ${language} in ${folder} (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
      folders[language] = folder;
    }
    return folders;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/**
 * Java's generator lives in its language host (tools/pulumi-java), which implements GeneratePackage: the CLI's own
 * `pulumi package gen-sdk` runs it. It writes `<out>/java`, here into a folder of its own so nothing else is touched.
 */
function generateJava(cli: string, env: NodeJS.ProcessEnv, schemaFile: string, folder: string): void {
  const out = mkdtempSync(join(tmpdir(), "sdk-gen-java-"));
  try {
    const gen = spawnSync(join(cli, "pulumi"), ["package", "gen-sdk", schemaFile, "--language", "java", "--out", out], { env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    if (gen.status !== 0) fail(`pulumi package gen-sdk --language java exited ${gen.status ?? gen.signal}:\n${gen.stdout}${gen.stderr}`);
    renameSync(join(out, "java"), folder);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
  writeMavenProject(folder, JSON.parse(readFileSync(schemaFile, "utf8")) as PackageSchema);
}

interface PackageSchema {
  name: string;
  version: string;
  description?: string;
  pluginDownloadURL?: string;
  language?: { java?: { basePackage?: string } };
}

/**
 * The Pulumi Java SDK the generated code builds on: the newest com.pulumi:pulumi that Maven Central serves here
 * (1.22.0 is not), the nearest to the v1.22.0 generator and host. build.gradle asks for 1.0.0, the generator's floor,
 * which compiles too but would run programs on a runtime far older than the host that starts them.
 */
export const JAVA_SDK_VERSION = "1.17.0";

/**
 * A pom.xml beside the generated Gradle build, for Maven users (`mvn install` puts the SDK in ~/.m2): the same
 * coordinates, dependencies and Java release as build.gradle (gson, which it names but no generated file imports,
 * comes with com.pulumi:pulumi), and the two resources its genPulumiResources task writes, which the SDK reads from
 * its classpath (its version, and the plugin a program needs).
 */
function writeMavenProject(folder: string, schema: PackageSchema): void {
  const group = schema.language?.java?.basePackage ?? fail("the schema names no language.java.basePackage");
  const resources = join(folder, "src", "main", "resources", ...group.split("."), schema.name);
  mkdirSync(resources, { recursive: true });
  writeFileSync(join(resources, "version.txt"), schema.version);
  const plugin = { resource: true, name: schema.name, server: schema.pluginDownloadURL, version: schema.version };
  writeFileSync(join(resources, "plugin.json"), `${JSON.stringify(plugin, null, 2)}\n`);
  const xml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  writeFileSync(
    join(folder, "pom.xml"),
    `<?xml version="1.0" encoding="UTF-8"?>
<!-- Written by npm run sdk:gen beside the generator's build.gradle: the same artifact, built by Maven. -->
<project xmlns="http://maven.apache.org/POM/4.0.0" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 https://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>
  <groupId>${group}</groupId>
  <artifactId>${schema.name}</artifactId>
  <version>${schema.version}</version>
  <packaging>jar</packaging>
  <description>${xml(schema.description ?? "")}</description>
  <properties>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
    <maven.compiler.release>11</maven.compiler.release>
  </properties>
  <dependencies>
    <dependency>
      <groupId>com.pulumi</groupId>
      <artifactId>pulumi</artifactId>
      <version>${JAVA_SDK_VERSION}</version>
    </dependency>
    <dependency>
      <groupId>com.google.code.findbugs</groupId>
      <artifactId>jsr305</artifactId>
      <version>3.0.2</version>
    </dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin><artifactId>maven-resources-plugin</artifactId><version>3.3.1</version></plugin>
      <plugin><artifactId>maven-compiler-plugin</artifactId><version>3.13.0</version></plugin>
      <plugin><artifactId>maven-surefire-plugin</artifactId><version>3.5.2</version></plugin>
      <plugin><artifactId>maven-jar-plugin</artifactId><version>3.4.2</version></plugin>
      <plugin><artifactId>maven-install-plugin</artifactId><version>3.1.3</version></plugin>
    </plugins>
  </build>
</project>
`,
  );
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
