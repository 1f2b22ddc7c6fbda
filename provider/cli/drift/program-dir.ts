// Where the program of a state is, so that a report names the file and line that declare each resource: Pulumi
// records a resource's place as `project:///index.ts#12,5`, relative to its program's directory.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parse } from "yaml";

const PROJECT_FILES = ["Pulumi.yaml", "Pulumi.yml"];
/** How deep below the current directory programs are looked for (a repository of programs, not a disk). */
const SEARCH_DEPTH = 5;

/** The project a Pulumi.yaml in `dir` names, or undefined when there is none (or it cannot be read). */
function projectIn(dir: string): string | undefined {
  for (const file of PROJECT_FILES) {
    const path = join(dir, file);
    if (!existsSync(path)) continue;
    try {
      const name = (parse(readFileSync(path, "utf8")) as { name?: unknown } | null)?.name;
      return typeof name === "string" ? name : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** The programs under the current directory, by project name (one walk a process; folders of tools skipped). */
let programsHere: Map<string, string[]> | undefined;
function programsUnderCwd(): Map<string, string[]> {
  if (programsHere) return programsHere;
  const found = new Map<string, string[]>();
  const walk = (dir: string, depth: number) => {
    const project = projectIn(dir);
    if (project !== undefined) found.set(project, [...(found.get(project) ?? []), dir]);
    if (depth === SEARCH_DEPTH) return;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.isDirectory() && !entry.name.startsWith(".") && entry.name !== "node_modules") walk(join(dir, entry.name), depth + 1);
    }
  };
  walk(process.cwd(), 0);
  return (programsHere = found);
}

/**
 * The directory of the program of `project` whose state is `file`: the nearest folder at or above the state's that
 * holds that project's Pulumi.yaml (the engine keeps its state in `<program>/.audience/state/<stack>.json`), else the
 * one such folder under the current directory (a CI job that exported each stack to a folder of states), else none:
 * a report then names no file rather than one that is not there.
 */
export function programDirOf(file: string, project: string | undefined): string | undefined {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const named = projectIn(dir);
    if (named !== undefined && (project === undefined || named === project)) return dir;
    if (dirname(dir) === dir) break;
  }
  if (project === undefined) return undefined;
  const candidates = programsUnderCwd().get(project) ?? [];
  return candidates.length === 1 ? candidates[0] : undefined;
}
