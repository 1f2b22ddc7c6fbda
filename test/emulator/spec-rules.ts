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

const SEPARATOR = /^\|[-| :]+\|$/;
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
  const lines = markdown.split("\n");
  for (const [at, raw] of lines.entries()) {
    const line = raw.trim();
    const heading = /^(#+)\s+(.*)$/.exec(line);
    if (heading) {
      const level = (heading[1] as string).length;
      headings.length = level - 1;
      headings[level - 1] = heading[2] as string;
      // Sections are named by their heading path below the title: `endpoints/scopes`.
      sectionSlug = headings.slice(1).map(slug).join("/") || "introduction";
      counter = 0;
      continue;
    }
    if (line === "" || SEPARATOR.test(line)) continue;
    if (line.startsWith("|")) {
      // A table's header row is the one its separator follows.
      if (!SEPARATOR.test((lines[at + 1] ?? "").trim())) add("row", line);
      continue;
    }
    const item = /^(?:[-*]|\d+\.)\s+(.*)$/.exec(line);
    for (const sentence of sentences(item ? (item[1] as string) : line)) add("sentence", sentence);
  }
  return rules;
}
