// A state moves between our engine (`audience run`) and the real `pulumi` CLI unchanged, both ways and both faces:
// a stack deployed by `audience run up` is taken over with `audience stack export` | `pulumi stack import`, and
// `pulumi preview --expect-no-changes` passes and `pulumi up` writes nothing; a stack deployed by `pulumi up` is
// taken over with `pulumi stack export` | `audience stack import`, and `audience run` finds nothing to do. The
// config is set once, with `pulumi config set`, and read by both.
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PLUGIN_IN_PACKAGE, programFolder, pulumiCli, pulumiStack, type PulumiStack, type Run, skipReason } from "./cli.ts";
import { emulatedService } from "./emulated.ts";

const cli = pulumiCli();
const { baseUrl, createAccount, takeWrites } = emulatedService();

/** Runs the installed package's `audience` CLI in the stack's program folder, with the stack's environment. */
function audience(stack: PulumiStack, args: readonly string[], input = ""): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(stack.dir, "node_modules", "pulumi-audience", "bin", "audience.js"), ...args, "--cwd", stack.dir, "--stack", stack.stack], {
      cwd: stack.dir, env: stack.env, stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.stdin.end(input);
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr, output: stdout + stderr }));
  });
}

async function audienceMust(stack: PulumiStack, args: readonly string[], input = ""): Promise<Run> {
  const run = await audience(stack, args, input);
  if (run.code !== 0) throw new Error(`audience ${args.join(" ")} exited ${run.code ?? run.signal}:\n${run.output}`);
  return run;
}

/** The changes `audience run <op> --json` reports, by kind. */
function changesOf(run: Run): Record<string, number> {
  return (JSON.parse(run.stdout) as { changes: Record<string, number> }).changes;
}

/** The kinds of change but `same` a run reports. */
const changed = (run: Run) => Object.keys(changesOf(run)).filter((k) => k !== "same");

/** The module a face's program imports, and what its Pulumi.yaml adds (where the CLI finds the native plugin). */
const FACES = {
  dynamic: { module: "pulumi-audience", project: "" },
  native: { module: "pulumi-audience/native", project: PLUGIN_IN_PACKAGE },
} as const;

/** A program of both kinds a state holds: a lookup, a scope with secret-free inputs, a target depending on it. */
const programSource = (face: keyof typeof FACES) => programFolder({
  "Pulumi.yaml": `name: interchange-${face}\nruntime: nodejs\nmain: index.ts\n${FACES[face].project}`,
  "index.ts": `import * as audience from "${FACES[face].module}";
const leads = audience.getCohortOutput({ name: "Leads" });
const scope = new audience.Scope("pipeline", { name: "Pipeline", population: { cohortIds: [leads.id] }, payload: { cohortIds: [leads.id] }, preview: true });
const csv = new audience.Target("csv", { name: "Pipeline CSV", scopeId: scope.id, representation: { mode: "identified" }, options: { type: "hosted_csv" } });
export const scopeId = scope.id;
export const csvUrl = csv.outputUrl;
`,
});

describe.each(Object.keys(FACES) as (keyof typeof FACES)[])(`a %s stack moves between audience run and pulumi${skipReason()}`, { timeout: 600_000 }, (face) => {
  if (!cli.dir) return;
  let stack: PulumiStack;
  let scopeId: unknown;

  it("deployed by audience run, taken over by pulumi: no change, no replacement, no write", async () => {
    const apiKey = await createAccount(`interchange-${face}`);
    stack = await pulumiStack({ program: programSource(face), env: { AUDIENCE_BASE_URL: baseUrl() } });
    await stack.config({ "audience:apiKey": apiKey }, true);

    const up = await audienceMust(stack, ["run", "up", "--yes", "--json"]);
    // The stack, the scope and the target.
    expect(changesOf(up)).toMatchObject({ create: 3 });
    const exported = await audienceMust(stack, ["stack", "export"]);
    const file = join(stack.dir, "from-audience.json");
    writeFileSync(file, exported.stdout);
    await stack.must(["stack", "import", "--file", file]);
    scopeId = (await stack.outputs())["scopeId"];
    expect(scopeId).toEqual(expect.any(String));

    await takeWrites();
    const preview = await stack.pulumi(["preview", "--expect-no-changes", "--diff"]);
    expect(preview.code, preview.output).toBe(0);
    await stack.must(["refresh", "--yes", "--skip-preview", "--expect-no-changes"]);
    await stack.must(["up", "--yes", "--skip-preview", "--expect-no-changes"]);
    expect(await takeWrites()).toEqual([]);
    expect((await stack.outputs())["scopeId"]).toBe(scopeId);
  });

  it("deployed by pulumi, taken over by audience run: nothing to do, no write", async () => {
    // The same stack, now pulumi's, with a change pulumi applies first.
    await stack.must(["up", "--yes", "--replace", (await stack.exported()).deployment.resources!.find((r) => r.urn.endsWith("::csv"))!.urn]);
    const exported = await stack.must(["stack", "export"]);
    await audienceMust(stack, ["stack", "import"], exported.stdout);
    await takeWrites();
    const preview = await audienceMust(stack, ["run", "preview", "--json"]);
    expect(changed(preview)).toEqual([]);
    const refresh = await audienceMust(stack, ["run", "refresh", "--yes", "--json"]);
    expect(changed(refresh)).toEqual([]);
    const up = await audienceMust(stack, ["run", "up", "--yes", "--json"]);
    expect(changed(up)).toEqual([]);
    expect(await takeWrites()).toEqual([]);
    expect(JSON.parse((await audienceMust(stack, ["stack", "output", "scopeId", "--json"])).stdout)).toBe(scopeId);

    await audienceMust(stack, ["run", "destroy", "--yes", "--json"]);
    expect((await takeWrites()).filter((w) => w.startsWith("DELETE"))).toHaveLength(2);
  });
});
