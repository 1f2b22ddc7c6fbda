// Members a team accepts changing by hand: `.audience-drift-ignore` lines `Type:name-or-id[:path]`, `*` matching
// any text in a type or name and within one segment of a path, `**` across segments, `!` taking a match back; the
// last line that matches decides.
import { readFile } from "node:fs/promises";
import { InputError } from "./states.ts";

interface Rule {
  negate: boolean;
  type: RegExp;
  resource: RegExp;
  /** Absent: the whole resource. */
  path?: RegExp;
}

/** A member path's glob: `*` within one segment. A type's or a name's (`Sandbox v1.2`) has no segments: `*` is any text. */
function pattern(glob: string, segments = true): RegExp {
  const star = segments ? "[^.]*" : ".*";
  const body = glob.split(/(\*\*|\*)/).map((part) => (part === "**" ? ".*" : part === "*" ? star : part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))).join("");
  return new RegExp(`^${body}$`);
}

const wholeResource = (rule: Rule) => rule.path === undefined;

export class IgnoreRules {
  readonly #rules: Rule[];

  constructor(rules: Rule[] = []) {
    this.#rules = rules;
  }

  static parse(text: string, source: string): IgnoreRules {
    const rules: Rule[] = [];
    text.split(/\r?\n/).forEach((raw, index) => {
      const line = raw.trim();
      if (line === "" || line.startsWith("#")) return;
      const negate = line.startsWith("!");
      const parts = (negate ? line.slice(1) : line).split(":");
      if (parts.length < 2 || parts.length > 3 || parts.some((p) => p === "")) {
        throw new InputError(`${source}:${index + 1}: "${line}" should be Type:name-or-id or Type:name-or-id:member.path (e.g. Scope:*:reportUrl)`);
      }
      const [type, resource, path] = parts as [string, string, string | undefined];
      rules.push({ negate, type: pattern(type, false), resource: pattern(resource, false), ...(path !== undefined ? { path: pattern(path) } : {}) });
    });
    return new IgnoreRules(rules);
  }

  static async read(file: string): Promise<IgnoreRules> {
    try {
      return IgnoreRules.parse(await readFile(file, "utf8"), file);
    } catch (error) {
      if (error instanceof InputError) throw error;
      throw new InputError(`--ignore ${file}: ${(error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (error as Error).message}`);
    }
  }

  concat(other: IgnoreRules): IgnoreRules {
    return new IgnoreRules([...this.#rules, ...other.#rules]);
  }

  /** Whether the whole resource is ignored (any status). */
  ignoresResource(type: string, name: string, id: string): boolean {
    return this.#rules.length > 0 && this.#decide(type, name, id, wholeResource);
  }

  /** Whether a changed member (`options.host`) is ignored: a rule on it, on a member enclosing it, or on the resource. */
  ignoresMember(type: string, name: string, id: string, path: string): boolean {
    if (this.#rules.length === 0) return false;
    const enclosing = [path];
    for (let cut = path.search(/[.[][^.[]*$/); cut > 0; cut = enclosing[0]!.search(/[.[][^.[]*$/)) enclosing.unshift(path.slice(0, cut));
    return this.#decide(type, name, id, (rule) => rule.path === undefined || enclosing.some((p) => rule.path!.test(p)));
  }

  /** A rule names the resource by its name or its id. */
  #decide(type: string, name: string, id: string, applies: (rule: Rule) => boolean): boolean {
    let ignored = false;
    for (const rule of this.#rules) {
      if (rule.type.test(type) && (rule.resource.test(name) || rule.resource.test(id)) && applies(rule)) ignored = !rule.negate;
    }
    return ignored;
  }
}
