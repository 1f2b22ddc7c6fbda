// The parts of `audience drift` a user configures or reads without a service: ignore rules, colour, report
// merging and exit codes.
import { describe, expect, it } from "vitest";
import { formatText } from "../../provider/cli/drift/format.ts";
import { IgnoreRules } from "../../provider/cli/drift/ignore.ts";
import { exitCode, makeReport, mergeReports, type AccountReport } from "../../provider/cli/drift/report.ts";
import { InputError } from "../../provider/cli/drift/states.ts";

const north: AccountReport = {
  account: "north", baseUrl: "http://127.0.0.1:1", resources: [
    { urn: "urn:pulumi:dev::p::pulumi-nodejs:dynamic/audience:Scope::pipeline", type: "Scope", name: "pipeline", id: "s1", status: "drifted", changes: [{ path: "reportUrl", expected: "a", actual: "b" }] },
    { type: "Cohort", name: "Handmade", id: "c9", status: "unmanaged", changes: [] },
  ],
};
const south: AccountReport = { account: "south", baseUrl: "http://127.0.0.1:1", resources: [{ type: "Cohort", name: "kept", id: "c1", status: "in_sync", changes: [] }] };

describe("ignore rules", () => {
  const rules = IgnoreRules.parse("# accepted\nScope:*:reportUrl\nTarget:csv:options.*\n!Target:csv:options.type\nCohort:Sandbox*\n", ".audience-drift-ignore");

  it("match members by class, name or id and path, enclosing members included", () => {
    expect(rules.ignoresMember("Scope", "pipeline", "s1", "reportUrl")).toBe(true);
    expect(rules.ignoresMember("Scope", "pipeline", "s1", "name")).toBe(false);
    expect(rules.ignoresMember("Target", "csv", "t1", "options.host")).toBe(true);
    expect(rules.ignoresMember("Target", "csv", "t1", "options.headers.accept")).toBe(true);
    expect(rules.ignoresMember("Target", "other", "t2", "options.host")).toBe(false);
  });

  it("take a match back with !, the last matching line deciding", () => {
    expect(rules.ignoresMember("Target", "csv", "t1", "options.type")).toBe(false);
    expect(IgnoreRules.parse("!Target:csv:options.type\nTarget:csv:options.*\n", "f").ignoresMember("Target", "csv", "t1", "options.type")).toBe(true);
  });

  it("ignore whole resources with two parts", () => {
    expect(rules.ignoresResource("Cohort", "Sandbox scratch", "c2")).toBe(true);
    // A name has no segments: `*` matches its dots too.
    expect(rules.ignoresResource("Cohort", "Sandbox v1.2", "c3")).toBe(true);
    expect(rules.ignoresResource("Scope", "pipeline", "s1")).toBe(false);
    expect(IgnoreRules.parse("Scope:s1\n", "f").ignoresResource("Scope", "pipeline", "s1")).toBe(true); // by its id
  });

  it("refuse a malformed line, naming the file and line", () => {
    expect(() => IgnoreRules.parse("Scope:*:reportUrl\nScope\n", "team.ignore")).toThrow(new InputError('team.ignore:2: "Scope" should be Type:name-or-id or Type:name-or-id:member.path (e.g. Scope:*:reportUrl)'));
  });
});

describe("colour", () => {
  it("paints the text report only when asked", () => {
    const report = makeReport([north]);
    expect(formatText(report, true)).toContain("\u001b[33m");
    expect(formatText(report, false)).not.toContain("\u001b[");
  });
});

describe("reports", () => {
  it("merge shards into the report of all accounts, in one order", () => {
    expect(mergeReports([makeReport([south]), makeReport([north])])).toEqual(makeReport([north, south]));
    expect(makeReport([north, south]).summary).toEqual({ in_sync: 1, drifted: 1, missing: 0, error: 0, unknown: 0, contested: 0, unmanaged: 1, coverage: 0.6667, failed_accounts: 0 });
  });

  it("exit 2 only for what --fail-on names; an unreadable account counts as an error", () => {
    const report = makeReport([north, south]);
    expect(exitCode(report, ["drifted"])).toBe(2);
    expect(exitCode(report, ["missing", "error"])).toBe(0);
    expect(exitCode(makeReport([{ account: "east", baseUrl: "x", error: "GET /accounts/current: 401", resources: [] }]), ["error"])).toBe(2);
  });
});
