// Splits the service spec into its rule units, each with a stable id: every table row, every numbered or bulleted
// item and every sentence of a paragraph or item. emulator/SPEC-COVERAGE.md maps each id to a test, the emulator
// code, `not emulated: <why>` or `silent: <what we chose>`; spec-coverage.test.ts holds the two to each other.

export interface SpecRule {
  /** `<section>.<n>`: the section's slug and the unit's place in it (1-based). */
  id: string;
  /** The heading path, `Endpoints / Scopes`. */
  section: string;
  kind: "row" | "sentence";
  text: string;
}

const slug = (heading: string) => heading.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");

/**
 * Sentences of a paragraph or list item: split after a full stop followed by a capital letter or a digit.
 * Abbreviations the spec uses (`e.g.`) are not followed by a capital, so they never split.
 */
export function sentences(text: string): string[] {
  return text.split(/(?<=\.)\s+(?=[A-Z0-9<{])/).map((s) => s.trim()).filter((s) => s !== "");
}

export function specRules(markdown: string): SpecRule[] {
  const rules: SpecRule[] = [];
  const headings: string[] = [];
  let counter = 0;
  let sectionSlug = "";
  const add = (kind: SpecRule["kind"], text: string) => {
    counter += 1;
    rules.push({ id: `${sectionSlug}.${counter}`, section: headings.slice(1).join(" / "), kind, text });
  };
  let header = false;
  for (const raw of markdown.split("\n")) {
    const line = raw.trim();
    const heading = /^(#+)\s+(.*)$/.exec(line);
    if (heading) {
      const level = (heading[1] as string).length;
      headings.length = level - 1;
      headings[level - 1] = heading[2] as string;
      // Sections are named by their heading path below the title: `endpoints/scopes`.
      sectionSlug = headings.slice(1).map(slug).join("/") || "introduction";
      counter = 0;
      header = false;
      continue;
    }
    if (line === "") {
      header = false;
      continue;
    }
    if (line.startsWith("|")) {
      // The first row of a table is its header, the second its separator.
      if (/^\|[-| :]+\|$/.test(line)) continue;
      if (!header && !rules.at(-1)?.text.startsWith("|") && isTableStart(markdown, raw)) {
        header = true;
        continue;
      }
      add("row", line);
      continue;
    }
    const item = /^(?:[-*]|\d+\.)\s+(.*)$/.exec(line);
    for (const sentence of sentences(item ? (item[1] as string) : line)) add("sentence", sentence);
  }
  return rules;
}

/** Whether `line` is the header row of a table (the line after it is the separator). */
function isTableStart(markdown: string, line: string): boolean {
  const lines = markdown.split("\n");
  const at = lines.indexOf(line);
  return /^\s*\|[-| :]+\|\s*$/.test(lines[at + 1] ?? "");
}
