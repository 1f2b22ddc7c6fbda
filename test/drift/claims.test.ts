// Which stack a resource belongs to, across the given stacks: a resource any given state records is never "made
// outside any given program", even when the account that state reaches cannot be read; one that several stacks
// manage (same id) is reported once, as contested, naming each stack and what its comparison found.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { driftReport } from "../../provider/cli/drift/index.ts";
import { exitCode, type Report } from "../../provider/cli/drift/report.ts";
import { exportStack, startFleet, type Fleet, type Props } from "./fleet.ts";

let fleet: Fleet;
let dir: string;
const files: Record<string, string> = {};
const ids: Record<string, string> = {};
/** A second key of the parent account: a stack holding it is read as an account of its own. */
let otherKey: string;

/** A state in `dir`, the program's folder (project `fleet`), with the stack's config beside it when given. */
async function save(stack: string, document: Props, apiKey?: string): Promise<string> {
  const file = join(dir, `${stack}.json`);
  await writeFile(file, JSON.stringify(document));
  if (apiKey !== undefined) await writeFile(join(dir, `Pulumi.${stack}.yaml`), `config:\n  audience:apiKey: ${apiKey}\n  audience:baseUrl: ${fleet.url}\n`);
  return file;
}

/** The document with every resource's URN moved to `stack`. */
function movedTo(document: Props, stack: string, edit: (inputs: Props) => Props = (inputs) => inputs): Props {
  const moved = structuredClone(document) as { deployment: { resources: Props[] } };
  for (const r of moved.deployment.resources) {
    r.urn = String(r.urn).replace(/^urn:pulumi:[^:]+::/, `urn:pulumi:${stack}::`);
    if (r.inputs) r.inputs = edit(r.inputs as Props);
  }
  return moved;
}

beforeAll(async () => {
  fleet = await startFleet();
  dir = await mkdtemp(join(tmpdir(), "audience-drift-claims-"));
  await writeFile(join(dir, "Pulumi.yaml"), "name: fleet\nruntime: nodejs\n");
  otherKey = ((await fleet.control("POST", `/accounts/${fleet.parent.id}/keys`, {})) as { api_key: string }).api_key;

  const read = await exportStack(fleet.settings, "read", [{ name: "alpha", collection: "cohorts", props: { name: "Alpha" } }], "shown");
  const unread = await exportStack(fleet.settings, "unread", [
    { name: "beta", collection: "cohorts", props: { name: "Beta" } },
    { name: "gamma", collection: "cohorts", props: { name: "Gamma" } },
  ], "shown");
  const twin = await exportStack(fleet.settings, "first", [{ name: "twin", collection: "cohorts", props: { name: "Twin" } }], "shown");
  Object.assign(ids, read.ids, unread.ids, twin.ids);
  files.read = await save("read", read.document, fleet.parent.apiKey);
  files.unread = await save("unread", unread.document); // no config anywhere: its account cannot be read
  files.first = await save("first", twin.document, fleet.parent.apiKey);
  // Another stack of the same key records the same id; a third, with another key of the account, records it with
  // another name (so its comparison finds the resource drifted).
  files.second = await save("second", movedTo(twin.document, "second"), fleet.parent.apiKey);
  files.third = await save("third", movedTo(twin.document, "third", (inputs) => ({ ...inputs, name: "Twin, as third declares it" })), otherKey);
}, 120_000);

afterAll(async () => {
  await fleet?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const scan = (...states: string[]) => driftReport({ states, env: {} });
const managedIds = (report: Report) => report.accounts.flatMap((a) => a.resources.filter((r) => r.status !== "unmanaged").map((r) => r.id));
const unmanagedIds = (report: Report) => report.accounts.flatMap((a) => a.resources.filter((r) => r.status === "unmanaged").map((r) => r.id));

describe("a stack whose account cannot be read", () => {
  it("leaves its resources out of what another account's scan calls unmanaged", async () => {
    const report = await scan(files.read!, files.unread!);
    const unread = report.accounts.find((a) => a.stacks?.includes("fleet/unread"));
    expect(unread?.error).toMatch(/no API key/);
    expect(managedIds(report)).toEqual([ids.alpha]);
    expect(unmanagedIds(report)).not.toContain(ids.beta);
    expect(unmanagedIds(report)).not.toContain(ids.gamma);
  });

  it("gives no coverage when it is the only account: nothing was seen, not everything managed", async () => {
    const report = await scan(files.unread!);
    expect(report.summary).toMatchObject({ failed_accounts: 1, coverage: null });
  });
});

describe("a resource several stacks manage", () => {
  let report: Report;
  beforeAll(async () => {
    report = await scan(files.first!, files.second!, files.third!);
  });

  it("is reported once, contested, naming each stack with what its comparison found", () => {
    const twins = report.accounts.flatMap((a) => a.resources.filter((r) => r.id === ids.twin));
    expect(twins).toEqual([{
      type: "Cohort",
      name: "twin",
      id: ids.twin,
      status: "contested",
      changes: [],
      reason: "managed by 3 stacks: fleet/first, fleet/second, fleet/third",
      claims: [
        { stack: "fleet/first", urn: expect.stringContaining("urn:pulumi:first::"), name: "twin", status: "in_sync", changes: [] },
        { stack: "fleet/second", urn: expect.stringContaining("urn:pulumi:second::"), name: "twin", status: "in_sync", changes: [] },
        { stack: "fleet/third", urn: expect.stringContaining("urn:pulumi:third::"), name: "twin", status: "drifted", changes: [{ path: "name", expected: "Twin, as third declares it", actual: "Twin" }] },
      ],
    }]);
  });

  it("counts once, among the managed", () => {
    expect(report.summary).toMatchObject({ in_sync: 0, drifted: 0, contested: 1 });
    const managed = Object.entries(report.summary).filter(([k]) => !["unmanaged", "coverage", "failed_accounts"].includes(k)).reduce((n, [, v]) => n + (v as number), 0);
    expect(managed).toBe(1);
  });

  it("fails --fail-on contested, and what its stacks found fails as theirs", () => {
    expect(exitCode(report, ["contested"])).toBe(2);
    expect(exitCode(report, ["drifted"])).toBe(2); // the third stack's comparison
    expect(exitCode(report, ["missing"])).toBe(0);
  });
});
