// The plugin's renaming of operator members between the schema's names (`$gte`) and the TypeScript ones (`_gte`):
// fields only, never data (record keys, values), secrets renamed inside their markers.
import { families } from "pulumi-audience/sdk/contract";
import { describe, expect, it } from "vitest";
import { pathSpelled, programNamed, spelled, spellingOf } from "../../provider/plugin/names.ts";
import type { PropertyMap } from "../../provider/protocol/values.ts";
import { secret } from "./harness.ts";

const cohort = families.cohorts.create;
const dataset = families.datasets.create;

describe("operator members renamed by the plugin", () => {
  it("take either name in, the program's out; the schema's when asked", () => {
    const given: PropertyMap = { streamConditions: [{ property: "amount", $gte: 1 }, { property: "datetime", _on_or_after: "2024-01-01" }] };
    const program: PropertyMap = { streamConditions: [{ property: "amount", _gte: 1 }, { property: "datetime", _on_or_after: "2024-01-01" }] };
    expect(programNamed(cohort, given)).toEqual(program);
    expect(spelled(cohort, program, "schema")).toEqual({ streamConditions: [{ property: "amount", $gte: 1 }, { property: "datetime", $onOrAfter: "2024-01-01" }] });
    expect(spelled(cohort, program, "program")).toEqual(program);
  });

  it("leave data alone: record keys and values that look like operators", () => {
    const mapping = { outputToStreams: { $city: { dataMap: { _gte: { columnName: "c" }, $gte: { columnName: "d" } }, conditions: [{ columnName: "x", $in: [1] }] } } };
    expect(programNamed(dataset, mapping)).toEqual({ outputToStreams: { $city: { dataMap: { _gte: { columnName: "c" }, $gte: { columnName: "d" } }, conditions: [{ columnName: "x", _in: [1] }] } } });
    expect(programNamed(cohort, { streamConditions: [{ property: "$gte", _eq: "$gte" }] })).toEqual({ streamConditions: [{ property: "$gte", _eq: "$gte" }] });
  });

  it("rename inside a secret", () => {
    expect(programNamed(cohort, { streamConditions: secret([{ property: "amount", $gte: 1 }]) as never })).toEqual({ streamConditions: secret([{ property: "amount", _gte: 1 }]) });
  });

  it("tell which names inputs use: the program's only when they name an operator `_gte` and none `$gte`", () => {
    expect(spellingOf(cohort, { streamConditions: [{ property: "a", _gte: 1 }] })).toBe("program");
    expect(spellingOf(cohort, { streamConditions: [{ property: "a", $gte: 1 }] })).toBe("schema");
    expect(spellingOf(cohort, { streamConditions: [{ property: "a", _gte: 1 }, { property: "b", $lte: 1 }] })).toBe("schema");
    expect(spellingOf(cohort, { name: "no operators" })).toBe("schema");
    // The first inputs that name an operator decide.
    expect(spellingOf(cohort, { name: "x" }, { streamConditions: [{ property: "a", _gte: 1 }] })).toBe("program");
  });

  it("write a path in the schema's names, keeping any other path as it was written", () => {
    expect(pathSpelled(cohort, "streamConditions[3]._on_or_after", "schema")).toBe("streamConditions[3].$onOrAfter");
    expect(pathSpelled(cohort, "streamConditions[3]._on_or_after", "program")).toBe("streamConditions[3]._on_or_after");
    expect(pathSpelled(dataset, 'outputToStreams["web.visits"].conditions[0]._in', "schema")).toBe('outputToStreams["web.visits"].conditions[0].$in');
    expect(pathSpelled(dataset, 'outputToStreams["web.visits"].dataMap', "schema")).toBe('outputToStreams["web.visits"].dataMap');
    expect(pathSpelled(cohort, "name", "schema")).toBe("name");
  });
});
