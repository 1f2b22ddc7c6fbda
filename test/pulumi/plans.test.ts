// Update plans through the real `pulumi` CLI (`pulumi preview --save-plan`, then `pulumi up --plan`, an experimental
// Pulumi feature): what a pull request's preview showed is what `up` does, or `up` refuses. For each face, one stack:
// a create, an update and a no-op each go as planned; a stack whose config changed after its plan was saved is
// refused before anything is written.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PLUGIN_IN_PACKAGE, programFolder, pulumiCli, pulumiStack, type PulumiStack, skipReason } from "./cli.ts";
import { emulatedService, idsHidden } from "./emulated.ts";

const cli = pulumiCli();
const { baseUrl, createAccount, list, takeWrites } = emulatedService({ port: 0, builds: { default: "immediate" } });

/** The cohort's name and the scope's preview flag come from stack config: each step is a config change. */
const program = (face: string) => `import * as pulumi from "@pulumi/pulumi";
import * as audience from "${face}";

const config = new pulumi.Config();
const buyers = new audience.Cohort("buyers", { name: config.require("cohortName"), streamName: "transactions", minCount: 2 });
const scope = new audience.Scope("pipeline", {
  name: "Planned pipeline", population: { cohortIds: [buyers.id] }, payload: { cohortIds: [buyers.id] }, preview: config.requireBoolean("preview"),
});
export const scopeId = scope.id;
`;

describe.each(["pulumi-audience/native", "pulumi-audience"])(`update plans through pulumi, %s${skipReason()}`, { timeout: 400_000 }, (face) => {
  if (!cli.dir) return;
  let stack: PulumiStack;
  let apiKey: string;
  const experimental = { env: { PULUMI_EXPERIMENTAL: "true" } };
  /** Saves the plan of the stack's program and config as they are; `up` then follows it. */
  const plan = async (name: string) => {
    const file = join(stack.dir, `${name}.plan.json`);
    const preview = await stack.must(["preview", "--save-plan", file], experimental);
    expect(await takeWrites()).toEqual([]);
    return { file, preview };
  };
  const upWith = (file: string) => stack.pulumi(["up", "--yes", "--skip-preview", "--plan", file], experimental);
  const names = async () => (await list(apiKey, "cohorts")).filter((c) => c.name.startsWith("Planned")).map((c) => c.name);

  it("a create, an update and a no-op each go as their saved plan says", async () => {
    apiKey = await createAccount(`plans ${face}`);
    stack = await pulumiStack({ program: programFolder({ "Pulumi.yaml": `name: plans\nruntime: nodejs\nmain: index.ts\n${PLUGIN_IN_PACKAGE}`, "index.ts": program(face) }), env: { AUDIENCE_BASE_URL: baseUrl() } });
    await stack.config({ "audience:apiKey": apiKey }, true);
    await stack.config({ cohortName: "Planned buyers", preview: "true" });
    await takeWrites();

    const created = await plan("create");
    expect(created.preview.output).toMatch(/\+ 3 to create/);
    const up = await upWith(created.file);
    expect(up.code, up.output).toBe(0);
    expect(up.output).toMatch(/\+ 3 created/);
    expect(await names()).toEqual(["Planned buyers"]);
    expect((await takeWrites()).sort()).toEqual(["POST /cohorts", "POST /scopes"]);

    await stack.config({ cohortName: "Planned loyal buyers", preview: "false" });
    const updated = await plan("update");
    expect(updated.preview.output).toMatch(/~ 2 to update/);
    const update = await upWith(updated.file);
    expect(update.code, update.output).toBe(0);
    expect(update.output).toMatch(/~ 2 updated/);
    expect(await names()).toEqual(["Planned loyal buyers"]);
    const scopes = await list(apiKey, "scopes");
    expect(scopes.find((s) => s.name === "Planned pipeline")?.preview).toBe(false);
    expect(idsHidden(await takeWrites()).sort()).toEqual(["PATCH /cohorts/<id>", "PATCH /scopes/<id>"]);

    const unchanged = await plan("no-op");
    const noop = await upWith(unchanged.file);
    expect(noop.code, noop.output).toBe(0);
    expect(noop.output).toMatch(/3 unchanged/);
    expect(await takeWrites()).toEqual([]);
  });

  it("a stack whose config changed after its plan was saved is refused, and nothing is written", async () => {
    await stack.config({ cohortName: "Planned new buyers" });
    const saved = await plan("stale");
    await stack.config({ cohortName: "Planned other buyers" });
    const up = await upWith(saved.file);
    expect(up.code).not.toBe(0);
    // Pulumi's own check of the plan names the resource and the member that differs from it.
    expect(up.output).toContain(face === "pulumi-audience"
      // Pulumi's dynamic-provider resource takes the stack's config as its inputs: the change is refused there first.
      ? "pulumi:providers:pulumi-nodejs::default violates plan: properties changed: ~~plans:cohortName[{Planned new buyers}!={Planned other buyers}]"
      : "Cohort::buyers violates plan: properties changed: ~~name[{Planned new buyers}!={Planned other buyers}]");
    expect(await takeWrites()).toEqual([]);
    expect(await names()).toEqual(["Planned loyal buyers"]);
    const again = await upWith((await plan("fresh")).file);
    expect(again.code, again.output).toBe(0);
    expect(await names()).toEqual(["Planned other buyers"]);
    expect(idsHidden(await takeWrites())).toEqual(["PATCH /cohorts/<id>"]);
  });
});
