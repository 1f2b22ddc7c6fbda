// `npm run plugin:pack`: the `audience` provider plugin as a release publishes it. A folder Pulumi runs through
// PulumiPlugin.yaml (package.json, the compiled code, bin/) and one `pulumi-resource-audience-v<version>-<os>-<arch>.tar.gz`
// per platform, the names Pulumi's plugin downloads look for under `pluginDownloadURL`. That URL (`--server`, else
// AUDIENCE_PLUGIN_DOWNLOAD_URL, else package.json's `pulumi.server`) is written into the folder's package.json, where
// the plugin reads it for its schema. Nothing in the folder is a link: `pulumi plugin install --file <folder>` copies
// files, not links.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Command } from "commander";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** The platforms of a release: the folder is the same for each (plain JavaScript), only the names differ. */
export const PLATFORMS = ["linux-amd64", "linux-arm64", "darwin-amd64", "darwin-arm64", "windows-amd64"] as const;

export interface PackOptions {
  /** Where the folder and the tarballs go. */
  out: string;
  /** The plugin's download URL written into the schema; package.json's `pulumi.server` when not given. */
  server?: string;
  /** `os-arch` names to write a tarball for; none writes the folder only. */
  platforms?: readonly string[];
}

export interface Packed {
  folder: string;
  tarballs: string[];
  /** `<sha256>  <file name>` lines, as `sha256sum` writes them. */
  checksums: string;
}

interface Manifest {
  name: string;
  version: string;
  pulumi: { resource: boolean; name: string; server?: string };
  [key: string]: unknown;
}

interface LockEntry {
  dev?: boolean;
  devOptional?: boolean;
  [key: string]: unknown;
}

interface Lockfile {
  packages: Record<string, LockEntry & { devDependencies?: unknown }>;
  [key: string]: unknown;
}

const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, "utf8")) as T;
const writeJson = (path: string, value: unknown) => writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);

const BUILD_CONFIG = join(ROOT, "tsconfig.build.json");

/** The files the build makes of the sources there are now (paths under dist/): code, source map and declarations,
 * and the bundles (scripts/build.ts, which leaves none of an earlier build behind). */
export function buildOutputs(): string[] {
  const outputs: string[] = [];
  for (const top of readJson<{ include: string[] }>(BUILD_CONFIG).include) {
    for (const file of readdirSync(join(ROOT, top), { recursive: true, encoding: "utf8" })) {
      if (!file.endsWith(".ts") || file.endsWith(".d.ts")) continue;
      const stem = join(top, file.slice(0, -".ts".length));
      outputs.push(`${stem}.js`, `${stem}.js.map`, `${stem}.d.ts`);
    }
  }
  for (const file of readdirSync(join(ROOT, "dist", "bundle"), { recursive: true, encoding: "utf8" })) if (file.endsWith(".js")) outputs.push(join("bundle", file));
  return outputs;
}

/** What the plugin needs of package.json: no development tools, no scripts (npm would run `prepare` on install). */
function pluginManifest(manifest: Manifest, server: string | undefined): Manifest {
  const { devDependencies: _dev, scripts: _scripts, files: _files, bin: _bin, ...kept } = manifest;
  return { ...kept, pulumi: { ...manifest.pulumi, ...(server ? { server } : {}) } };
}

/** The lockfile without what only development needs, so `npm install` there installs exactly the production tree. */
function pluginLockfile(lock: Lockfile): Lockfile {
  const packages = Object.fromEntries(Object.entries(lock.packages).filter(([, entry]) => !entry.dev && !entry.devOptional));
  const { devDependencies: _dev, ...root } = packages[""] ?? {};
  return { ...lock, packages: { ...packages, "": root } };
}

export function packPlugin(options: PackOptions): Packed {
  const manifest = readJson<Manifest>(join(ROOT, "package.json"));
  const lock = pluginLockfile(readJson<Lockfile>(join(ROOT, "package-lock.json")));
  const base = `pulumi-resource-${manifest.pulumi.name}-v${manifest.version}`;
  const out = resolve(options.out);
  const folder = join(out, base);
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });

  // The package's own build, as `npm run build` (npm pack's `prepare`) makes it: type-checked, into the checkout's
  // dist/, and incremental, so a build already up to date costs a check of what changed. The folder takes the outputs
  // of the current sources only: a build leaves those of removed sources behind, and its incremental record.
  execFileSync(process.execPath, [join(ROOT, "scripts", "build.ts")], { stdio: "inherit" });
  for (const output of buildOutputs()) cpSync(join(ROOT, "dist", output), join(folder, "dist", output));
  for (const file of ["PulumiPlugin.yaml", "pulumi-resource-audience", "README.md", "bin"]) cpSync(join(ROOT, file), join(folder, file), { recursive: true, dereference: true });
  writeJson(join(folder, "package.json"), pluginManifest(manifest, options.server));
  writeJson(join(folder, "package-lock.json"), lock);
  // The CLI runs `npm install` in the installed folder: nothing to report to anyone.
  writeFileSync(join(folder, ".npmrc"), "audit=false\nfund=false\nupdate-notifier=false\n");

  const tarballs: string[] = [];
  const sums: string[] = [];
  const entries = readdirSync(folder);
  for (const platform of options.platforms ?? []) {
    const tarball = join(out, `${base}-${platform}.tar.gz`);
    // The folder's contents at the archive's root, as Pulumi unpacks a plugin into its own folder.
    execFileSync("tar", ["-czf", tarball, "-C", folder, ...entries]);
    tarballs.push(tarball);
    sums.push(`${createHash("sha256").update(readFileSync(tarball)).digest("hex")}  ${base}-${platform}.tar.gz`);
  }
  const checksums = sums.map((line) => `${line}\n`).join("");
  if (tarballs.length > 0) writeFileSync(join(out, `${base}-checksums.txt`), checksums);
  return { folder, tarballs, checksums };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const program = new Command("plugin:pack")
    .description("Builds the audience provider plugin's release folder and tarballs")
    .option("--out <dir>", "where the folder and tarballs go", join(ROOT, "release"))
    .option("--server <url>", "the plugin's download URL (pluginDownloadURL), e.g. github://api.github.com/<org>/<repo>; default: $AUDIENCE_PLUGIN_DOWNLOAD_URL, else package.json's pulumi.server")
    .option("--platform <os-arch...>", `platforms to write a tarball for (default: ${PLATFORMS.join(", ")})`)
    .parse();
  const opts = program.opts<{ out: string; server?: string; platform?: string[] }>();
  const server = opts.server ?? (process.env.AUDIENCE_PLUGIN_DOWNLOAD_URL || undefined);
  const packed = packPlugin({ out: opts.out, platforms: opts.platform ?? PLATFORMS, ...(server ? { server } : {}) });
  process.stdout.write(`${packed.folder}\n${packed.tarballs.join("\n")}\n${packed.checksums}`);
}
