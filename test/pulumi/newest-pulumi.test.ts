// The package installed as any Pulumi user installs it, `npm install <the package> @pulumi/pulumi@<version>`, with the
// newest @pulumi/pulumi 3.x of its supported range rather than the 3.270.0 every other test runs on: npm installs one
// copy, the program's, which the package's resources register through (with a second copy, an inline Automation API
// program failed on its first resource with "Request message serialization failure", and the runtime's debug traces
// of each resource call reached the engine). Through the real `pulumi` CLI against the emulator: `up` of a small
// dynamic-face program and its no-op, the traces kept in the program, and an inline Automation API program. And the
// installed package as a plugin: its executable serves as one, and no Pulumi command installs anything into it (with
// a PulumiPlugin.yaml there, they ran a development `npm install` in it, adding a second @pulumi/pulumi).
// Needs the npm registry (or npm's cache) to install @pulumi/pulumi.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "pulumi-audience/emulator";
import { buildIfStale } from "../global-setup.ts";
import { pulumiCli, skipReason } from "./cli.ts";

/** The newest @pulumi/pulumi (`npm view @pulumi/pulumi version`) when this test was written; raise it by hand. */
const NEWEST = "3.276.0";
const ROOT = join(import.meta.dirname, "..", "..");
const cli = pulumiCli();

const PROGRAM = `import * as audience from "pulumi-audience";

const spenders = new audience.Cohort("spenders", { name: "Newest spenders", streamName: "transactions", minCount: 2 });
export const cohortId = spenders.id;
`;

/** An inline Automation API program (the stack's project and program given in code), run by \`node\`. */
const INLINE = `import { LocalWorkspace } from "@pulumi/pulumi/automation/index.js";
import * as audience from "pulumi-audience";

const stack = await LocalWorkspace.createOrSelectStack({
  stackName: "inline",
  projectName: "inline",
  program: async () => {
    const cohort = new audience.Cohort("inline", { name: "Inline spenders", streamName: "transactions", minCount: 3 });
    return { cohortId: cohort.id };
  },
});
const up = await stack.up();
console.log(JSON.stringify({ changes: up.summary.resourceChanges, cohortId: up.outputs["cohortId"]?.value }));
`;

/** The runtime's traces of the calls registering the program's resource (bin/runtime-traces.cjs). The stack's own
 * registration comes before the program imports the package: without the preload (which the Node.js host built here
 * does not pass), its traces are sent. */
const TRACES = /(Registering resource|RegisterResource RPC \w+): [^\n]*audience:Cohort/;

let work: string;
let dir: string;
let emulator: RunningEmulator;
let env: NodeJS.ProcessEnv;

function run(command: string, args: string[], extra: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: dir, env: { ...env, ...extra }, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (output += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (output += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 240_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

const pulumi = (args: string[], extra: NodeJS.ProcessEnv = {}) => run(join(cli.dir!, "pulumi"), [...args, "--non-interactive"], extra);

/** The version of every @pulumi/pulumi under `modules`, by its folder relative to the program. */
function pulumiCopies(modules: string): Record<string, string> {
  const found: Record<string, string> = {};
  const walk = (folder: string) => {
    if (!existsSync(folder)) return;
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name === ".bin") continue;
      const path = join(folder, entry.name);
      if (path.endsWith(join("@pulumi", "pulumi"))) found[path.slice(dir.length + 1)] = (JSON.parse(readFileSync(join(path, "package.json"), "utf8")) as { version: string }).version;
      walk(entry.name.startsWith("@") ? path : join(path, "node_modules"));
    }
  };
  walk(modules);
  return found;
}

async function cohort(id: string): Promise<number> {
  return (await fetch(`${emulator.url}/v1/cohorts/${id}`, { headers: { authorization: `Bearer ${emulator.apiKey}` } })).status;
}

describe(`the package installed beside @pulumi/pulumi ${NEWEST}${skipReason()}`, { timeout: 600_000 }, () => {
  beforeAll(async () => {
    if (!cli.dir) return;
    work = mkdtempSync(join(tmpdir(), "audience-newest-pulumi-"));
    dir = join(work, "program");
    mkdirSync(dir);
    // The package as npm publishes it (its `prepare` being the build of this run).
    buildIfStale(ROOT);
    const [packed] = JSON.parse(execFileSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", work], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] })) as { filename: string }[];
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "newest", private: true, type: "module" }));
    writeFileSync(join(dir, "Pulumi.yaml"), "name: newest\nruntime:\n  name: nodejs\n  options:\n    typescript: false\nmain: index.ts\n");
    writeFileSync(join(dir, "index.ts"), PROGRAM);
    writeFileSync(join(dir, "inline.ts"), INLINE);
    execFileSync("npm", ["install", "--no-audit", "--no-fund", join(work, packed!.filename), `@pulumi/pulumi@${NEWEST}`], { cwd: dir, stdio: "pipe", timeout: 400_000 });
    emulator = await startEmulator({ port: 0 });
    const { NODE_OPTIONS: _, AUDIENCE_RUNTIME_TRACES: __, ...own } = process.env;
    env = {
      ...own,
      PATH: [cli.dir, dirname(process.execPath), process.env["PATH"] ?? ""].join(delimiter),
      PULUMI_HOME: join(work, "home"),
      PULUMI_BACKEND_URL: `file://${join(work, "backend")}`,
      PULUMI_CONFIG_PASSPHRASE: "pulumi passphrase",
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      PULUMI_DISABLE_REGISTRY_RESOLVE: "true",
      NO_COLOR: "1",
      AUDIENCE_BASE_URL: `${emulator.url}/v1`,
      AUDIENCE_API_KEY: emulator.apiKey,
    };
    mkdirSync(join(work, "backend"));
    const select = await pulumi(["stack", "select", "--create", "--stack", "dev"]);
    expect(select.code, select.output).toBe(0);
  }, 600_000);

  afterAll(async () => {
    await emulator?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it.skipIf(!cli.dir)("is one copy, the program's", () => {
    expect(pulumiCopies(join(dir, "node_modules"))).toEqual({ [join("node_modules", "@pulumi", "pulumi")]: NEWEST });
  });

  it.skipIf(!cli.dir)("runs `pulumi up` and its no-op, keeping the runtime's traces of each resource call in the program", async () => {
    const up = await pulumi(["up", "--yes", "--skip-preview", "--debug"]);
    expect(up.code, up.output).toBe(0);
    expect(up.output).not.toMatch(TRACES);
    const outputs = await pulumi(["stack", "output", "--json"]);
    expect(await cohort((JSON.parse(outputs.output) as { cohortId: string }).cohortId)).toBe(200);
    const again = await pulumi(["up", "--yes", "--skip-preview", "--expect-no-changes"]);
    expect(again.code, again.output).toBe(0);
    // What the check above would see without the patch: the runtime sends them when asked to.
    const shown = await pulumi(["preview", "--debug"], { AUDIENCE_RUNTIME_TRACES: "1" });
    expect(shown.output).toMatch(TRACES);
  });

  it.skipIf(!cli.dir)("serves as a plugin through its executable, and no command installs anything into it", async () => {
    const installed = join(dir, "node_modules", "pulumi-audience");
    const schema = await pulumi(["package", "get-schema", "./node_modules/pulumi-audience/pulumi-resource-audience"]);
    expect(schema.code, schema.output).toBe(0);
    expect(JSON.parse(schema.output.slice(schema.output.indexOf("{")))).toMatchObject({ name: "audience" });
    const folder = await pulumi(["package", "get-schema", "./node_modules/pulumi-audience"]);
    expect(folder.output).toContain('an executable named "pulumi-resource-" or a PulumiPlugin file');
    expect(folder.output).not.toContain("Installing dependencies");
    expect(existsSync(join(installed, "node_modules"))).toBe(false);
    expect(existsSync(join(installed, "package-lock.json"))).toBe(false);
  });

  it.skipIf(!cli.dir)("runs an inline Automation API program, which makes its resource", async () => {
    const inline = await run(process.execPath, ["inline.ts"]);
    expect(inline.code, inline.output).toBe(0);
    const { changes, cohortId } = JSON.parse(inline.output.trim().split("\n").at(-1)!) as { changes: Record<string, number>; cohortId: string };
    expect(changes).toEqual({ create: 2 });
    expect(await cohort(cohortId)).toBe(200);
  });
});
