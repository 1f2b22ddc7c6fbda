// The reports as a terminal and a job summary show them: each account named with its stacks; the notable resources
// of each, then how many more are in sync, said only when there are some.
import { expect, it } from "vitest";
import { formatMarkdown, formatText } from "../../provider/cli/drift/format.ts";
import { makeReport, type ResourceReport } from "../../provider/cli/drift/report.ts";

const cohort = (name: string, status: ResourceReport["status"]): ResourceReport => ({ type: "Cohort", name, id: `id-${name}`, status, changes: [] });

it("counts the resources in sync below the notable ones, and says nothing of none", () => {
  const some = formatMarkdown(makeReport([{ account: "north", baseUrl: "https://a.example/v1", resources: [cohort("gone", "missing"), cohort("fine", "in_sync")] }]));
  expect(some).toContain("| missing | Cohort gone | `id-gone` |  |\n\n1 more in sync.\n");
  const none = formatMarkdown(makeReport([{ account: "north", baseUrl: "https://a.example/v1", resources: [cohort("gone", "missing")] }]));
  expect(none).not.toContain("more in sync");
});

it("names each account with the stacks in it, so that two stacks' default accounts are told apart", () => {
  const report = makeReport([
    { account: "default", baseUrl: "https://a.example/v1", stacks: ["shop/prod"], resources: [cohort("b", "in_sync")] },
    { account: "default", baseUrl: "https://a.example/v1", stacks: ["shop/dev"], resources: [cohort("a", "in_sync")] },
  ]);
  expect(formatText(report, false).split("\n").filter((line) => line.startsWith("account"))).toEqual([
    "account default of shop/dev (https://a.example/v1)",
    "account default of shop/prod (https://a.example/v1)",
  ]);
  expect(formatMarkdown(report)).toContain("### Account `default` of `shop/dev`");
});

it("with nothing read, gives no coverage of nothing", () => {
  const empty = makeReport([{ account: "stale", baseUrl: "https://a.example/v1", error: "the key was refused", resources: [] }]);
  expect(formatText(empty, false)).toContain("0 in sync, 0 drifted, 0 missing, 0 error, 0 unknown, 0 unmanaged; nothing managed or found; 1 account not read");
});

it("keeps a changed value holding backticks, pipes and backslashes inside its markdown code span", () => {
  const renamed: ResourceReport = { ...cohort("buyers", "drifted"), changes: [{ path: "name", expected: "Buyers", actual: "North `buyers` | *x* \\d" }] };
  const markdown = formatMarkdown(makeReport([{ account: "north", baseUrl: "https://a.example/v1", resources: [renamed] }]));
  expect(markdown).toContain('| drifted | Cohort buyers | `id-buyers` | `` name: "Buyers" -> "North `buyers` \\| *x* \\\\d" `` |');
});
