// Tests that start `bin/*.js` (the plugin, the CLI as users run it), and the programs and hosts the engine starts
// from a test, run the built `dist/`. In a working copy whose sources changed since the last build, they would test
// the old code: build first when any source is newer.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** The source folders tsc compiles into dist/: read from the build's own config, so a folder added there is watched. */
export const BUILT = (JSON.parse(readFileSync(join(ROOT, "tsconfig.build.json"), "utf8")) as { include: string[] }).include;

/** The newest modification time of the files under `dir` whose names end with `suffix`. */
function newest(dir: string, suffix: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith(suffix)) latest = Math.max(latest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return latest;
}

export function isBuildStale(root: string): boolean {
  const dist = join(root, "dist");
  if (!existsSync(dist)) return true;
  const sources = Math.max(...BUILT.map((dir) => newest(join(root, dir), ".ts")));
  return sources > newest(dist, ".js");
}

/** Builds dist/ (npm run build) when any source is newer than it: the one build of a test run. */
export function buildIfStale(root: string = ROOT): void {
  if (!isBuildStale(root)) return;
  process.stderr.write("dist/ is older than its sources: building it first (npm run build)\n");
  execFileSync(process.execPath, [join(root, "scripts", "build.ts")], { cwd: root, stdio: "inherit" });
}

export default function setup(): void {
  buildIfStale();
}
