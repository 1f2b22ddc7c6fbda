// The reports as a terminal and a job summary show them: each account named with its stacks; the notable resources
// of each, then how many more are in sync, said only when there are some; a resource several stacks manage once,
// with each stack's finding; the set of shards a merge takes.
import { describe, expect, it } from "vitest";
import { formatGithub, formatMarkdown, formatText } from "../../provider/cli/drift/format.ts";
import { makeReport, mergeReports, shardSetProblem, type ResourceReport } from "../../provider/cli/drift/report.ts";

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

it("with nothing read, gives no coverage of nothing: unknown where an account was not read", () => {
  const empty = makeReport([{ account: "stale", baseUrl: "https://a.example/v1", error: "the key was refused", resources: [] }]);
  expect(empty.summary.coverage).toBeNull();
  expect(formatText(empty, false)).toContain("0 in sync, 0 drifted, 0 missing, 0 error, 0 unknown, 0 contested, 0 unmanaged; coverage unknown; 1 account not read");
  expect(formatMarkdown(empty)).toMatch(/\| unknown *\|\n/);
  const none = makeReport([{ account: "north", baseUrl: "https://a.example/v1", resources: [] }]);
  expect([none.summary.coverage, formatText(none, false)]).toEqual([1, expect.stringContaining("; nothing managed or found\n")]);
});

describe("a resource two stacks manage", () => {
  const source = (line: number) => ({ file: "/work/shop/index.ts", line, column: 1 });
  const claimed = (stack: string, status: ResourceReport["status"], changes: ResourceReport["changes"] = []): ResourceReport => ({
    ...cohort("big", status), urn: `urn:pulumi:${stack}::shop::pulumi-nodejs:dynamic/audience:Cohort::big`, changes, source: source(stack === "dev" ? 4 : 9),
  });
  // Two default accounts reached by two keys of one account: each lists it, each stack's state compared.
  const report = makeReport([
    { account: "default", baseUrl: "https://a.example/v1", stacks: ["shop/prod"], resources: [claimed("prod", "drifted", [{ path: "minCount", expected: 2, actual: 3 }]), cohort("lone", "in_sync")] },
    { account: "default", baseUrl: "https://a.example/v1", stacks: ["shop/dev"], resources: [claimed("dev", "in_sync")] },
  ]);

  it("is one line in text, naming each stack with what its state's comparison found, and counted once", () => {
    expect(formatText(report, false)).toContain([
      "  contested (1)",
      "    * Cohort big (id-big): managed by 2 stacks: shop/dev, shop/prod",
      "        shop/dev: in sync",
      "        shop/prod: drifted",
      "            minCount: 2 -> 3",
    ].join("\n"));
    expect(report.summary).toMatchObject({ in_sync: 1, drifted: 0, contested: 1, coverage: 1 });
    expect(report.accounts.map((a) => a.resources.map((r) => r.name))).toEqual([["big"], ["lone"]]);
  });

  it("is one row in markdown and one annotation, an error on a line that declares it", () => {
    expect(formatMarkdown(report)).toContain("| contested | Cohort big | `id-big` | managed by 2 stacks: shop/dev, shop/prod<br>shop/dev: in sync<br>shop/prod: drifted<br>`minCount: 2 -> 3` |");
    const annotations = formatGithub(report, "/work/shop").split("\n").filter((l) => l.includes("Cohort big"));
    expect(annotations).toEqual(["::error file=index.ts,line=4,col=1,title=drift%3A Cohort big contested (account default of shop/dev)::managed by 2 stacks: shop/dev, shop/prod%0Ashop/dev: in sync%0Ashop/prod: drifted%0A  minCount: 2 -> 3"]);
  });

  it("stays one resource when shards' reports are merged, and the same stack's state given twice is one claim", () => {
    expect(mergeReports([report, makeReport([{ account: "default", baseUrl: "https://a.example/v1", stacks: ["shop/test"], resources: [claimed("test", "missing")] }])]).accounts.flatMap((a) => a.resources.filter((r) => r.name === "big").map((r) => r.claims?.map((c) => [c.stack, c.status]))))
      .toEqual([[["shop/dev", "in_sync"], ["shop/prod", "drifted"], ["shop/test", "missing"]]]);
    const twice = makeReport([{ account: "default", baseUrl: "https://a.example/v1", stacks: ["shop/dev"], resources: [claimed("dev", "in_sync"), claimed("dev", "in_sync")] }]);
    expect(twice.accounts[0]!.resources).toEqual([claimed("dev", "in_sync")]);
  });
});

describe("merging shards", () => {
  const files = ["a.json", "b.json", "c.json"];
  it("takes shards 1..N of one run, each once, in any order", () => {
    expect(shardSetProblem([{ shard: "2/3" }, { shard: "3/3" }, { shard: "1/3" }], files)).toBeUndefined();
  });
  it("names the shards missing or repeated, and a report that is no shard's", () => {
    expect(shardSetProblem([{ shard: "1/3" }, { shard: "1/3" }], files)).toBe("shards 2/3, 3/3 missing; shard 1/3 given 2 times (a.json, b.json): give each of shards 1/3 to 3/3 once");
    expect(shardSetProblem([{ shard: "1/2" }, { shard: "2/3" }], files)).toBe("a.json is shard 1/2 but b.json is shard 2/3: give the reports of one run's shards");
    expect(shardSetProblem([{ shard: "1/2" }, {}], files)).toMatch(/^b\.json is not the report of a shard/);
  });
});

it("keeps a changed value holding backticks, pipes and backslashes inside its markdown code span", () => {
  const renamed: ResourceReport = { ...cohort("buyers", "drifted"), changes: [{ path: "name", expected: "Buyers", actual: "North `buyers` | *x* \\d" }] };
  const markdown = formatMarkdown(makeReport([{ account: "north", baseUrl: "https://a.example/v1", resources: [renamed] }]));
  expect(markdown).toContain('| drifted | Cohort buyers | `id-buyers` | `` name: "Buyers" -> "North `buyers` \\| *x* \\\\d" `` |');
});
