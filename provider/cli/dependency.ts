// How a program this command writes depends on this package, so that `npm install` there installs the copy the
// command runs from: the registry's version only when the registry is where it came from; else the tarball it was
// installed from, or the installed folder itself, as a `file:` path relative to the program.
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

export interface Manifest {
  version: string;
  engines: { node: string };
  dependencies: Record<string, string>;
  /** What the program provides: its own @pulumi/pulumi, within the range given. */
  peerDependencies: Record<string, string>;
  devDependencies: Record<string, string>;
}

/** This package: its manifest, and whether it runs from a checkout (not from some node_modules). */
export function thisPackage(): { manifest: Manifest; root: string; fromCheckout: boolean } {
  const path = createRequire(import.meta.url).resolve("pulumi-audience/package.json");
  const root = dirname(path);
  return { manifest: createRequire(import.meta.url)(path) as Manifest, root, fromCheckout: !root.split(sep).includes("node_modules") };
}

/** Where the lockfile npm wrote when it installed `root` says the package came from (`resolved`), if it says. */
function lockedResolution(root: string): { resolved: string; project: string } | undefined {
  const modules = dirname(root);
  const project = dirname(modules);
  const key = relative(project, root).split(sep).join("/");
  for (const file of [join(modules, ".package-lock.json"), join(project, "package-lock.json")]) {
    if (!existsSync(file)) continue;
    try {
      const lock = JSON.parse(readFileSync(file, "utf8")) as { packages?: Record<string, { resolved?: unknown }> };
      const resolved = lock.packages?.[key]?.resolved;
      if (typeof resolved === "string") return { resolved, project };
    } catch {
      // an unreadable lockfile tells nothing
    }
  }
  return undefined;
}

/** A `file:` path from the program's folder. */
function fileSpec(dir: string, target: string): string {
  const path = relative(resolve(dir), target) || ".";
  return `file:${path.startsWith(".") || isAbsolute(path) ? path : `./${path}`}`;
}

/** The dependency on this package that `npm install` in `dir` installs, from a checkout or an installation. */
export function dependencyFor(dir: string): string {
  const { manifest, root, fromCheckout } = thisPackage();
  if (fromCheckout) return fileSpec(dir, root);
  const locked = lockedResolution(root);
  if (locked && /^https?:/.test(locked.resolved)) return `^${manifest.version}`;
  if (locked?.resolved.startsWith("file:")) {
    const from = resolve(locked.project, locked.resolved.slice("file:".length));
    if (existsSync(from)) return fileSpec(dir, from);
  }
  return fileSpec(dir, realpathSync(root));
}
