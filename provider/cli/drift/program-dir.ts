// Where the program of a state is, so that a report names the file and line that declare each resource: Pulumi
// records a resource's place as `project:///index.ts#12,5`, relative to its program's directory.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

const PROJECT_FILES = ["Pulumi.yaml", "Pulumi.yml"];
/** How deep below the current directory programs are looked for (a repository of programs, not a disk). */
const SEARCH_DEPTH = 5;

/** The project a Pulumi.yaml in `dir` names (its top-level `name:`), or undefined when there is none. */
function projectIn(dir: string): string | undefined {
  for (const file of PROJECT_FILES) {
    const path = join(dir, file);
    if (!existsSync(path)) continue;
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch {
      return undefined;
    }
    const m = /^name:[ \t]*(?:"([^"]*)"|'([^']*)'|([^\s#]+))/m.exec(text);
    return m ? (m[1] ?? m[2] ?? m[3]) : undefined;
  }
  return undefined;
}

/**
 * The nearest folder at or above the state's that holds the Pulumi.yaml of `project` (any project's, when the state
 * names none): where the engine keeps a program's state (`<program>/.audience/state/<stack>.json`).
 */
export function programAbove(file: string, project: string | undefined): string | undefined {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const named = projectIn(dir);
    if (named !== undefined && (project === undefined || named === project)) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/** The programs under the current directory, by project name: one walk a process, folders of tools skipped. */
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

/** The one program of `project` below the current directory (a CI job that exported each stack to a folder of
 * states), or undefined when there is none or more than one. */
export function programBelowCwd(project: string): string | undefined {
  const candidates = programsUnderCwd().get(project) ?? [];
  return candidates.length === 1 ? candidates[0] : undefined;
}
