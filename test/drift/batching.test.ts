// What a scan costs: per account, each document fetched once (one plain list per family a program may own, which
// also answers its managed documents), never one request per resource; and every resource untouched since it was
// made is in sync.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { driftReport, type Report } from "../../provider/cli/drift/index.ts";
import type { DriftProgress } from "../../provider/cli/drift/progress.ts";
import { BUILT_AUDIENCE, userEnv } from "../cli/helpers.ts";
import { exportStack, startFleet, type Fleet, type LoggedRequest } from "./fleet.ts";

let fleet: Fleet;
let dir: string;
let report: Report;
let requests: LoggedRequest[];
let ids: Record<string, string>;

beforeAll(async () => {
  fleet = await startFleet();
  dir = await mkdtemp(join(tmpdir(), "drift-batching-"));
  const declared = [
    ...Array.from({ length: 250 }, (_, i) => ({ name: `cohort-${i}`, collection: "cohorts", props: { account: "north", name: `Cohort ${i}`, minCount: i } })),
    ...[1, 2].map((i) => ({ name: `hook-${i}`, collection: "webhook_endpoints", props: { account: "north", url: `https://hooks.example.com/${i}`, enabledEvents: ["resource.errored"] } })),
  ];
  const made = await exportStack(fleet.settings, "many", declared, "shown");
  const { document } = made;
  ids = made.ids;
  await writeFile(join(dir, "many.json"), JSON.stringify(document));
  const mark = await fleet.mark();
  report = await driftReport({ states: [join(dir, "*.json")], accounts: { north: { baseUrl: fleet.url, apiKey: fleet.north.apiKey } }, env: {} });
  requests = (await fleet.requests(mark)).filter((r) => r.account_id === fleet.north.id);
}, 120_000);

afterAll(async () => {
  await fleet?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

it("finds every resource untouched since it was made in sync", () => {
  expect(report.accounts.map((a) => [a.account, a.error])).toEqual([["north", undefined]]);
  expect(report.summary).toMatchObject({ in_sync: 252, drifted: 0, missing: 0, unknown: 0, error: 0, unmanaged: 0, coverage: 1 });
});

it("fetches each document once: one plain list per family, no `?ids=` batch of a listed family, never one resource at a time", () => {
  expect(requests.every((r) => r.method === "GET")).toBe(true);
  expect(requests.filter((r) => r.query.includes("ids="))).toEqual([]);
  const plain = requests.filter((r) => r.query === "" && r.path !== "/accounts/current").map((r) => r.path);
  expect(plain).toEqual(expect.arrayContaining(["/cohorts", "/webhook_endpoints"]));
  expect(new Set(plain).size).toBe(plain.length); // each family listed once
  expect(requests.filter((r) => /^\/[a-z_]+\/[0-9a-f-]{36}$/.test(r.path))).toEqual([]);
  expect(requests).toHaveLength(1 + plain.length);
});

it("reports an unreachable account as its error while the others complete", { timeout: 60_000 }, async () => {
  const document = JSON.parse(await readFile(join(dir, "many.json"), "utf8")) as { deployment: { resources: Record<string, unknown>[] } };
  const first = document.deployment.resources.find((r) => r.type === "pulumi-nodejs:dynamic/audience:Cohort")!;
  const elsewhere = { ...first, urn: `${String(first.urn)}-elsewhere`, inputs: { ...(first.inputs as object), account: "gone" } };
  await writeFile(join(dir, "elsewhere.json"), JSON.stringify({ version: 3, deployment: { resources: [elsewhere] } }));
  const told: DriftProgress[] = [];
  const both = await driftReport({
    states: [join(dir, "*.json")],
    accounts: { north: { baseUrl: fleet.url, apiKey: fleet.north.apiKey }, gone: { baseUrl: "http://127.0.0.1:9", apiKey: "aud_unreachable" } },
    env: {},
    timeoutMs: 2000,
    onProgress: (progress) => told.push(progress),
  });
  // Told at the start, then as each state is read and each account compared, the unreachable one included.
  expect(told[0]).toEqual({ states: 2, statesRead: 0, accounts: 0, accountsCompared: 0 });
  expect(told.at(-1)).toEqual({ states: 2, statesRead: 2, accounts: 2, accountsCompared: 2 });
  expect(told.map((p) => p.statesRead + p.accountsCompared)).toEqual([0, 1, 2, 3, 4]);
  expect(both.accounts.map((a) => [a.account, a.error === undefined ? "read" : "not read"])).toEqual([["gone", "not read"], ["north", "read"]]);
  expect(both.accounts[0]!.error).toMatch(/GET \/accounts\/current: .*127\.0\.0\.1:9/);
  expect(both.accounts[0]!.error).not.toContain("aud_unreachable");
  expect(both.summary.in_sync).toBe(252);
});

it("among many resources in sync, reports the few changed by hand with their values", { timeout: 60_000 }, async () => {
  await fleet.api(fleet.north, "PATCH", `/cohorts/${ids["cohort-7"]!}`, { min_count: 70 });
  await fleet.api(fleet.north, "PATCH", `/webhook_endpoints/${ids["hook-2"]!}`, { url: "https://hooks.example.com/moved" });
  const after = await driftReport({ states: [join(dir, "many.json")], accounts: { north: { baseUrl: fleet.url, apiKey: fleet.north.apiKey } }, env: {} });
  expect(after.summary).toMatchObject({ in_sync: 250, drifted: 2 });
  const drifted = after.accounts[0]!.resources.filter((r) => r.status === "drifted").map((r) => [r.name, r.changes]);
  expect(drifted).toEqual([
    ["cohort-7", [{ path: "minCount", expected: 7, actual: 70 }]],
    ["hook-2", [{ path: "url", expected: "https://hooks.example.com/2", actual: "https://hooks.example.com/moved" }]],
  ]);
});

it("starts an account's lists only once its key proves good: a refused key costs one request", { timeout: 60_000 }, async () => {
  const mark = await fleet.mark();
  const refused = await driftReport({ states: [join(dir, "many.json")], accounts: { north: { baseUrl: fleet.url, apiKey: "aud_refused" } }, env: {} });
  expect(refused.accounts[0]!.error).toMatch(/GET \/accounts\/current/);
  expect((await fleet.requests(mark)).map((r) => r.path)).toEqual(["/accounts/current"]);
});

it("refuses a bad state read after a good one, its account's reads already begun ended with it", { timeout: 60_000 }, async () => {
  const bad = join(dir, "zz-bad.json");
  await writeFile(bad, "not json");
  try {
    await expect(driftReport({ states: [join(dir, "many.json"), bad], accounts: { north: { baseUrl: fleet.url, apiKey: fleet.north.apiKey } }, env: {} })).rejects.toThrow(/zz-bad\.json: not JSON/);
  } finally {
    await rm(bad);
  }
});

it("reports a resource two states manage once, contested with each state's finding, and a document among them that no state manages once", { timeout: 60_000 }, async () => {
  const document = JSON.parse(await readFile(join(dir, "many.json"), "utf8")) as { deployment: { resources: Record<string, unknown>[] } };
  const twin = { version: 3, deployment: { resources: document.deployment.resources.map((r) => ({ ...r, urn: String(r.urn).replace("urn:pulumi:many::", "urn:pulumi:twin::") })) } };
  const loose = join(dir, "twin.json");
  await writeFile(loose, JSON.stringify(twin));
  const made = (await fleet.api(fleet.north, "POST", "/cohorts", { name: "Made by hand" })) as { id: string };
  try {
    const both = await driftReport({ states: [join(dir, "many.json"), loose], accounts: { north: { baseUrl: fleet.url, apiKey: fleet.north.apiKey } }, env: {} });
    const resources = both.accounts[0]!.resources;
    // Every resource is managed by both stacks; cohort-7 and hook-2 were changed by hand above: drifted in both.
    expect(both.summary).toMatchObject({ in_sync: 0, drifted: 0, contested: 250 + 2, unmanaged: 1 });
    const cohort7 = resources.filter((r) => r.name === "cohort-7");
    expect(cohort7.map((r) => [r.status, r.claims?.map((c) => [c.stack, c.status])])).toEqual([["contested", [["fleet/many", "drifted"], ["fleet/twin", "drifted"]]]]);
    expect(resources.filter((r) => r.status === "unmanaged").map((r) => [r.type, r.id])).toEqual([["Cohort", made.id]]);
  } finally {
    await fleet.api(fleet.north, "DELETE", `/cohorts/${made.id}`);
    await rm(loose);
  }
});

it("shows its progress on a terminal's stderr while the report goes to a file, and none with NO_COLOR", { timeout: 60_000 }, async () => {
  const accounts = join(dir, "accounts.json");
  await writeFile(accounts, JSON.stringify({ north: { baseUrl: fleet.url, apiKeyEnv: "NORTH_KEY" } }));
  /** What a terminal shows of `audience drift` run on it (util-linux `script` gives it one), stdout to a file. */
  const onTerminal = (env: NodeJS.ProcessEnv) => new Promise<string>((resolve, reject) => {
    const command = `${process.execPath} ${BUILT_AUDIENCE} drift --state ${join(dir, "many.json")} --accounts ${accounts} --json --fail-on error > ${join(dir, "report.json")}`;
    execFile("script", ["-qfec", command, "/dev/null"], { env: userEnv({ NORTH_KEY: fleet.north.apiKey, TERM: "xterm", ...env }) }, (error, stdout) => (error ? reject(error) : resolve(stdout)));
  });
  // Each list waits: the scan takes long enough for its line to show.
  await fleet.control("PUT", "/faults", { rules: [{ path: "/**", latency_ms: 700 }] });
  try {
    const shown = await onTerminal({});
    expect(shown.startsWith("\raudience drift: accounts compared: 0 of 1 (0s)\x1b[K")).toBe(true); // drawn before the account's lists came
    expect(shown.endsWith("\r\x1b[K")).toBe(true); // cleared before the report
    const written = JSON.parse(await readFile(join(dir, "report.json"), "utf8")) as Report;
    expect(written.accounts.map((a) => [a.account, a.resources.length])).toEqual([["north", 252]]);
    expect(await onTerminal({ NO_COLOR: "1" })).toBe("");
  } finally {
    await fleet.control("PUT", "/faults", { rules: [] });
    await rm(accounts);
  }
});
