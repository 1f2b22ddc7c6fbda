// The Markdown report as a job summary shows it: the notable resources of each account, then how many more are in
// sync, said only when there are some.
import { expect, it } from "vitest";
import { formatMarkdown } from "../../provider/cli/drift/format.ts";
import { makeReport, type ResourceReport } from "../../provider/cli/drift/report.ts";

const cohort = (name: string, status: ResourceReport["status"]): ResourceReport => ({ type: "Cohort", name, id: `id-${name}`, status, changes: [] });

it("counts the resources in sync below the notable ones, and says nothing of none", () => {
  const some = formatMarkdown(makeReport([{ account: "north", baseUrl: "https://a.example/v1", resources: [cohort("gone", "missing"), cohort("fine", "in_sync")] }]));
  expect(some).toContain("| missing | Cohort gone | `id-gone` |  |\n\n1 more in sync.\n");
  const none = formatMarkdown(makeReport([{ account: "north", baseUrl: "https://a.example/v1", resources: [cohort("gone", "missing")] }]));
  expect(none).not.toContain("more in sync");
});
