// emulator/SPEC-COVERAGE.md holds a row for every rule unit of the service spec (spec-rules.ts splits it), each
// covered by named tests that exist, deliberately not emulated (and then in the differences of docs/emulator.md), or a
// documented choice where the spec is silent.
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { specRules } from "./spec-rules.ts";

const SPEC_COPY = "test/emulator/fixtures/service-spec.md";
const spec = readFileSync(SPEC_COPY, "utf8");
const rules = specRules(spec);
const coverage = readFileSync("emulator/SPEC-COVERAGE.md", "utf8");
const emulatorDoc = readFileSync("docs/emulator.md", "utf8");

interface Row { id: string; rule: string; status: string; refs: string }

/** Table rows of the coverage file whose first cell is a rule id; `\|` is a pipe inside a cell. */
const rows: Row[] = coverage.split("\n").flatMap((line) => {
  const cells = line.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim().replaceAll("\\|", "|"));
  const [id, rule, status, refs] = cells;
  return cells.length === 4 && /^[a-z0-9/-]+\.\d+$/.test(id ?? "") ? [{ id: id!, rule: rule!, status: status!, refs: refs! }] : [];
});
const byId = new Map(rows.map((r) => [r.id, r]));
const kindOf = (status: string) => /^(covered|not emulated|silent|context)\b/.exec(status)?.[1];

describe("the spec's rule units", () => {
  it("are every table row, list item and sentence of the spec", () => {
    const tableBody = spec.split("\n").filter((l, i, all) => l.trim().startsWith("|") && !/^\|[-| :]+\|$/.test(l.trim())
      && !/^\|[-| :]+\|$/.test((all[i + 1] ?? "").trim()));
    expect(rules.filter((r) => r.kind === "row").map((r) => r.text)).toEqual(tableBody.map((l) => l.trim()));
    expect(new Set(rules.map((r) => r.id)).size).toBe(rules.length);
    // Sentences end where a full stop is followed by a new sentence, not inside "e.g.".
    expect(rules.find((r) => r.text.startsWith("Setting both gives a range"))?.text).toBe("Setting both gives a range; setting both to the same day matches that day.");
  });

  it("are read from a copy of the spec identical to the shared one, where that one is reachable", () => {
    const shared = [resolve("../shared/spec/service-spec.md"), resolve("../../shared/spec/service-spec.md")].find(existsSync);
    if (shared) expect(readFileSync(shared, "utf8")).toBe(spec);
    expect(rules.length).toBeGreaterThan(200);
  });
});

describe("emulator/SPEC-COVERAGE.md", () => {
  it("has one row for every rule unit, in the spec's order, and none for a unit the spec lacks", () => {
    expect(rows.map((r) => r.id)).toEqual(rules.map((r) => r.id));
  });

  it("quotes each unit as the spec writes it", () => {
    const drifted = rules.filter((r) => {
      const quoted = byId.get(r.id)?.rule.replace(/ …$/, "") ?? "";
      return quoted === "" || !r.text.startsWith(quoted);
    }).map((r) => r.id);
    expect(drifted).toEqual([]);
  });

  it("gives every row a status, and every covered or silent row tests that exist under the titles named", () => {
    const problems: string[] = [];
    for (const row of rows) {
      const kind = kindOf(row.status);
      if (!kind) problems.push(`${row.id}: status "${row.status}"`);
      if (kind !== "covered" && kind !== "context" && !/:\s*\S/.test(row.status)) problems.push(`${row.id}: says no why`);
      // `<file> "<test title>"`, joined by "; " (a title may hold "; " itself).
      const refs = [...row.refs.matchAll(/(test\/\S+\.test\.ts) "([^"]+)"/g)];
      const rest = row.refs.replace(/(test\/\S+\.test\.ts) "([^"]+)"/g, "").replaceAll(";", "").trim();
      if (rest !== "") problems.push(`${row.id}: not a test reference: ${rest}`);
      if (kind === "covered" && refs.length === 0) problems.push(`${row.id}: covered by no test`);
      for (const [, file, title] of refs as unknown as [string, string, string][]) {
        if (!existsSync(file) || !readFileSync(file, "utf8").includes(title)) problems.push(`${row.id}: no test "${title}" in ${file}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("states its counts truly", () => {
    const count = (kind: string) => rows.filter((r) => kindOf(r.status) === kind).length;
    expect(coverage).toContain(`Rule units: ${rules.length}; covered ${count("covered")}; not emulated ${count("not emulated")}; `
      + `where the spec is silent ${count("silent")}; context ${count("context")}.`);
  });

  it("lists every silent row under \"Where the spec is silent\", and docs/emulator.md names every one not emulated", () => {
    const silentSection = coverage.slice(coverage.indexOf("## Where the spec is silent"));
    const unlisted = rows.filter((r) => kindOf(r.status) === "silent" && !silentSection.includes(`- ${r.id}: `)).map((r) => r.id);
    expect(unlisted).toEqual([]);
    const differences = emulatorDoc.slice(emulatorDoc.indexOf("## Differences from the live service"));
    const tail = (id: string) => id.slice(id.lastIndexOf("."));
    const missing = rows.filter((r) => kindOf(r.status) === "not emulated")
      .filter((r) => !differences.includes(`\`${r.id}\``) && !differences.includes(`\`${tail(r.id)}\``)).map((r) => r.id);
    expect(missing).toEqual([]);
  });
});
