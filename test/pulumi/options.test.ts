// Pulumi's resource options and state commands on this package's resources, through the real `pulumi` CLI, one
// stack for the file: `pulumi import` of a native resource (one, and several with `--file`) records what a create
// would, and one the service does not let you create (a Forecast) is kept by its code; the dynamic face's `adoptId`
// and `replaceOnChanges`; `pulumi stack export`/`import`; `--target`; `--replace` with and without
// `deleteBeforeReplace`; `ignoreChanges`; `protect`; `retainOnDelete`; `customTimeouts` (native face). The program
// declares what its stack config lists, so each step is a config change.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type ExportedResource, PLUGIN_IN_PACKAGE, programFolder, pulumiCli, pulumiStack, type PulumiStack, skipReason } from "./cli.ts";
import { emulatedService } from "./emulated.ts";

const cli = pulumiCli();
// Cohort builds never finish unless advanced by hand: a create waiting for one runs into its customTimeouts.
const { baseUrl, createAccount, get, takeWrites } = emulatedService({ port: 0, builds: { default: "immediate", cohorts: "manual" } });

/**
 * Config `scopes` maps a resource name to its options (JSON: protect, retainOnDelete, ignoreChanges,
 * deleteBeforeReplace, customTimeouts) and optionally `title`, the service name (default `Scope <name>`);
 * `dynamicScopes` maps a dynamic scope's resource name to the id it takes over (null: none, it is created);
 * `slowCohort` declares a cohort whose create waits for its build, with those options; `dynamicCohort` a dynamic
 * cohort with `replaceOnChanges: ["minCount"]` and that `minCount`; `forecasts` maps a native forecast's resource name
 * to its arguments.
 */
const PROGRAM = `import * as pulumi from "@pulumi/pulumi";
import * as audience from "pulumi-audience/native";
import * as dynamic from "pulumi-audience";

type Declared = pulumi.CustomResourceOptions & { title?: string };
const config = new pulumi.Config();
const leads = audience.getCohortOutput({ name: "Leads" });
const args = (name: string) => ({ name, population: { cohortIds: [leads.id] }, payload: { cohortIds: [leads.id] }, preview: true });

for (const [name, { title, ...opts }] of Object.entries(config.getObject<Record<string, Declared>>("scopes") ?? {})) {
  new audience.Scope(name, args(title ?? \`Scope \${name}\`), opts);
}
for (const [name, adoptId] of Object.entries(config.getObject<Record<string, string | null>>("dynamicScopes") ?? {})) {
  new dynamic.Scope(name, { ...args(\`Scope \${name}\`), ...(adoptId ? { adoptId } : {}) });
}
for (const [name, args] of Object.entries(config.getObject<Record<string, { name: string; adoptId?: string }>>("forecasts") ?? {})) {
  new audience.Forecast(name, args);
}
const roc = config.getObject<{ minCount: number }>("dynamicCohort");
if (roc) new dynamic.Cohort("roc", { name: "Replaced on change", streamName: "transactions", minCount: roc.minCount }, { replaceOnChanges: ["minCount"] });
const slow = config.getObject<pulumi.CustomResourceOptions>("slowCohort");
if (slow) new audience.Cohort("slow", { name: "Slow cohort", streamName: "transactions", minCount: 2, waitFor: "ready" }, slow);
`;

// The program declares what is imported itself: the code `pulumi import` would print is not what these tests check.
const NO_CODE = ["--generate-code=false"];

const programSource = () => programFolder({
  "Pulumi.yaml": `name: options\nruntime: nodejs\nmain: index.ts\n${PLUGIN_IN_PACKAGE}`,
  "index.ts": PROGRAM,
});

describe(`resource options and state commands through pulumi${skipReason()}`, { timeout: 600_000 }, () => {
  if (!cli.dir) return;
  let stack: PulumiStack;
  let apiKey: string;
  const scopes: Record<string, Record<string, unknown>> = {};

  const resources = async () => (await stack.exported()).deployment.resources ?? [];
  const resource = async (name: string): Promise<ExportedResource> => (await resources()).find((r) => r.urn.endsWith(`::${name}`) && r.custom)!;
  const service = (id: string) => get(apiKey, `scopes/${id}`);
  /** A scope made directly in the service, as the program declares `Scope <name>`; its id. */
  async function existingScope(name: string): Promise<string> {
    const leads = ((await (await get(apiKey, "cohorts")).json()) as { id: string; name: string }[]).find((c) => c.name === "Leads")!.id;
    const made = await fetch(`${baseUrl()}/scopes`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ name: `Scope ${name}`, population: { cohort_ids: [leads] }, payload: { cohort_ids: [leads] }, preview: true }),
    });
    expect(made.status).toBe(201);
    return ((await made.json()) as { id: string }).id;
  }
  const declare = async () => stack.config({ scopes: JSON.stringify(scopes) });
  /** The recorded inputs and outputs of a resource, but its own name, id and the times the service set. */
  const recorded = (r: ExportedResource) => {
    const { name: _n, ...inputs } = r.inputs ?? {};
    const { name: _o, id: _i, ...outputs } = r.outputs ?? {};
    return { inputs, outputs: Object.fromEntries(Object.entries(outputs).filter(([key]) => !key.endsWith("At"))) };
  };

  it("goes up with a created twin of what is imported next", async () => {
    apiKey = await createAccount("options");
    stack = await pulumiStack({ program: programSource(), env: { AUDIENCE_BASE_URL: baseUrl() } });
    await stack.config({ "audience:apiKey": apiKey }, true);
    Object.assign(scopes, { twin: {}, kept: { protect: true }, retained: { retainOnDelete: true }, ignoring: { ignoreChanges: ["name"] }, ordered: { deleteBeforeReplace: true }, plain: {} });
    await declare();
    const up = await stack.must(["up", "--yes"]);
    expect(up.output).toMatch(/\+ 7 created/);
  });

  it("pulumi import of one native resource records what a create would; the next preview finds no change", async () => {
    const id = await existingScope("imported");
    await takeWrites();
    const imported = await stack.pulumi(["import", "audience:index:Scope", "imported", id, "--yes", "--protect=false", ...NO_CODE]);
    expect(imported.code, imported.output).toBe(0);
    expect((await takeWrites())).toEqual([]);
    const [mine, twin] = [await resource("imported"), await resource("twin")];
    expect(mine.id).toBe(id);
    expect(mine.inputs?.["name"]).toBe("Scope imported");
    expect(recorded(mine)).toEqual(recorded(twin));
    scopes["imported"] = {};
    await declare();
    const preview = await stack.pulumi(["preview", "--expect-no-changes", "--diff"]);
    expect(preview.code, preview.output).toBe(0);
  });

  it("pulumi import --file takes several, each as a create would record it", async () => {
    const ids = { first: await existingScope("first"), second: await existingScope("second") };
    const file = join(stack.dir, "import.json");
    writeFileSync(file, JSON.stringify({ resources: Object.entries(ids).map(([name, id]) => ({ type: "audience:index:Scope", name, id })) }));
    const imported = await stack.pulumi(["import", "--file", file, "--yes", "--protect=false", ...NO_CODE]);
    expect(imported.code, imported.output).toBe(0);
    const twin = recorded(await resource("twin"));
    for (const [name, id] of Object.entries(ids)) {
      const r = await resource(name);
      expect(r.id).toBe(id);
      expect(recorded(r)).toEqual(twin);
      scopes[name] = {};
    }
    await declare();
    const preview = await stack.pulumi(["preview", "--expect-no-changes", "--diff"]);
    expect(preview.code, preview.output).toBe(0);
  });

  it("pulumi import of a Forecast (not creatable): its code previews no change, nor does an adoptId naming it", async () => {
    const forecast = ((await (await get(apiKey, "forecasts")).json()) as { id: string; name: string }[])[0]!;
    await stack.must(["import", "audience:index:Forecast", "spend", forecast.id, "--yes", "--protect=false", ...NO_CODE]);
    await stack.config({ forecasts: JSON.stringify({ spend: { name: forecast.name } }) });
    await stack.must(["preview", "--expect-no-changes", "--diff"]);
    await stack.config({ forecasts: JSON.stringify({ spend: { name: forecast.name, adoptId: forecast.id } }) });
    const preview = await stack.must(["preview", "--diff"]);
    expect(preview.output).not.toContain("(replace)");
    await takeWrites();
    await stack.must(["up", "--yes", "--skip-preview"]);
    expect(await takeWrites()).toEqual([]);
    expect((await resource("spend")).id).toBe(forecast.id);
  });

  it("a dynamic scope with adoptId takes over an existing one without a create, recording what a create would", async () => {
    const id = await existingScope("adoptee");
    // Beside it, a dynamic twin created as the program declares it.
    await stack.config({ dynamicScopes: JSON.stringify({ adoptee: id, created: null }) });
    await takeWrites();
    await stack.must(["up", "--yes"]);
    expect(await takeWrites()).toEqual(["POST /scopes"]);
    const adoptee = await resource("adoptee");
    expect(adoptee.id).toBe(id);
    expect(adoptee.type).toBe("pulumi-nodejs:dynamic/audience:Scope");
    // A dynamic resource's outputs hold its inputs: the adoptId, in both, is all that differs.
    const { inputs: { adoptId, ...inputs }, outputs: { adoptId: adoptedId, ...outputs } } = recorded(adoptee);
    expect([adoptId, adoptedId]).toEqual([id, id]);
    expect({ inputs, outputs }).toEqual(recorded(await resource("created")));
    await stack.must(["preview", "--expect-no-changes"]);
  });

  it("replaceOnChanges replaces a dynamic resource; the state records the option among its inputs only", async () => {
    await stack.config({ dynamicCohort: JSON.stringify({ minCount: 1 }) });
    await stack.must(["up", "--yes"]);
    const before = await resource("roc");
    expect(before.inputs?.["__replaceOnChanges"]).toEqual(["minCount"]);
    expect(before.outputs).not.toHaveProperty("__replaceOnChanges");
    await stack.must(["preview", "--expect-no-changes"]);
    await stack.config({ dynamicCohort: JSON.stringify({ minCount: 2 }) });
    const preview = await stack.must(["preview", "--diff"]);
    expect(preview.output).toMatch(/\+-\s*pulumi-nodejs:dynamic\/audience:Cohort: \(replace\)/);
    expect(preview.output).not.toContain("__replaceOnChanges");
    await takeWrites();
    await stack.must(["up", "--yes", "--skip-preview"]);
    const after = await resource("roc");
    expect(after.id).not.toBe(before.id);
    expect(await takeWrites()).toEqual(["POST /cohorts", `DELETE /cohorts/${before.id}`]);
    await stack.must(["preview", "--expect-no-changes"]);
    await stack.config({ dynamicCohort: "null" });
    await stack.must(["up", "--yes", "--skip-preview"]);
  });

  it("pulumi stack export then import changes nothing", async () => {
    const file = join(stack.dir, "exported.json");
    await stack.must(["stack", "export", "--file", file]);
    await stack.must(["stack", "import", "--file", file]);
    await takeWrites();
    await stack.must(["preview", "--expect-no-changes"]);
    await stack.must(["refresh", "--yes", "--skip-preview", "--expect-no-changes"]);
    expect((await takeWrites())).toEqual([]);
  });

  it("--target updates only the resource named; ignoreChanges leaves a change of its member unapplied", async () => {
    const before = await resource("plain");
    scopes["twin"] = { title: "Twin renamed" };
    scopes["plain"] = { title: "Plain renamed" };
    scopes["ignoring"] = { ignoreChanges: ["name"], title: "Ignoring renamed" };
    await declare();
    await takeWrites();
    await stack.must(["up", "--yes", "--target", (await resource("twin")).urn]);
    expect((await takeWrites())).toEqual([`PATCH /scopes/${(await resource("twin")).id}`]);
    expect((await resource("plain")).inputs?.["name"]).toBe(before.inputs?.["name"]);
    await stack.must(["up", "--yes"]);
    expect((await takeWrites())).toEqual([`PATCH /scopes/${before.id}`]);
    expect((await resource("ignoring")).inputs?.["name"]).toBe("Scope ignoring");
    await stack.must(["preview", "--expect-no-changes"]);
  });

  it("--replace creates the new one first, or with deleteBeforeReplace deletes the old one first", async () => {
    for (const [name, order] of [["plain", ["POST", "DELETE"]], ["ordered", ["DELETE", "POST"]]] as const) {
      const old = await resource(name);
      await takeWrites();
      await stack.must(["up", "--yes", "--replace", old.urn]);
      const now = await resource(name);
      expect(now.id).not.toBe(old.id);
      const steps = { POST: "POST /scopes", DELETE: `DELETE /scopes/${old.id}` };
      expect((await takeWrites())).toEqual(order.map((method) => steps[method]));
      expect([404, 410]).toContain((await service(old.id!)).status);
    }
  });

  it("protect refuses to delete; retainOnDelete forgets without deleting", async () => {
    const kept = await resource("kept");
    const retained = await resource("retained");
    expect(kept.protect).toBe(true);
    expect(retained.retainOnDelete).toBe(true);
    delete scopes["kept"];
    delete scopes["retained"];
    await declare();
    await takeWrites();
    const refused = await stack.pulumi(["up", "--yes"]);
    expect(refused.code).not.toBe(0);
    expect(refused.output).toMatch(/protected/);
    expect((await service(kept.id!)).status).toBe(200);
    scopes["kept"] = {};
    await declare();
    await stack.must(["up", "--yes"]);
    expect((await takeWrites()).filter((w) => w.startsWith("DELETE"))).toEqual([]);
    expect((await resources()).some((r) => r.urn.endsWith("::retained"))).toBe(false);
    expect((await service(retained.id!)).status).toBe(200);
    expect((await resource("kept")).protect).toBeFalsy();
  });

  it("customTimeouts end a native create waiting for a build at the timeout, the resource kept in state", async () => {
    await stack.config({ slowCohort: JSON.stringify({ customTimeouts: { create: "2s" } }) });
    const up = await stack.pulumi(["up", "--yes"]);
    expect(up.code).not.toBe(0);
    expect(up.output).toMatch(/Cohort \S+ is still new after 2s \(customTimeouts\)/);
    const slow = await resource("slow");
    expect(slow?.id).toEqual(expect.any(String));
  });

  it("destroy removes what the stack holds", async () => {
    await stack.config({ slowCohort: "null" });
    await stack.must(["destroy", "--yes", "--skip-preview"]);
    expect(((await resources()).filter((r) => r.custom && !r.type.startsWith("pulumi:providers")))).toEqual([]);
  });
});
