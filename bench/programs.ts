// The programs the engine's and the floor's rows run, one registration per loop turn, BENCH_COUNT times. They live
// inside the package, where `pulumi-audience` resolves to itself (its built `dist/`, as installed), and preload what a
// scaffold's Pulumi.yaml preloads.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { VERSION } from "../provider/plugin/manifest.ts";
import { dynamicType, resourceToken } from "../provider/runtime/markers.ts";
import { providerModule } from "../provider/runtime/resources/shim.ts";
import { ROOT } from "./measure.ts";

const LOOP = 'for (let i = 0; i < Number(process.env["BENCH_COUNT"]); i++)';

export const PROGRAM = {
  cohorts: `import * as audience from "pulumi-audience";
${LOOP} new audience.Cohort(\`cohort-\${i}\`, { name: \`cohort \${i}\`, deletionMode: "delete" });
`,
  native: `import * as audience from "pulumi-audience/native";
${LOOP} new audience.Cohort(\`cohort-\${i}\`, { name: \`cohort \${i}\`, deletionMode: "delete" });
`,
  // The Pulumi runtime's own floor: one resource of one member, answered with it.
  bare: `import * as pulumi from "@pulumi/pulumi";
${LOOP} new pulumi.CustomResource("bench:index:Item", \`item-\${i}\`, { name: \`item \${i}\` });
`,
  // The least a dynamic provider can do for those cohorts, served by Pulumi's dynamic-provider host: Create and
  // Delete make the one undici request each needs; Check, Diff and Read are the host's own defaults. Only the undici
  // parts a request needs are loaded, as the client loads them (bench/lean-undici.ts says why).
  bareDynamic: `import * as pulumi from "@pulumi/pulumi";
const provider = ${JSON.stringify(`exports.handler = () => provider;
const requireUndici = require("module").createRequire(process.cwd() + "/");
const Pool = requireUndici("undici/lib/dispatcher/pool.js");
const request = requireUndici("undici/lib/api/api-request.js");
const base = new URL(process.env.AUDIENCE_BASE_URL);
const pool = new Pool(base.origin);
const headers = { authorization: "Bearer " + process.env.AUDIENCE_API_KEY, "content-type": "application/json" };
async function call(method, path, body) {
  const res = await request.call(pool, { method, path: base.pathname + path, headers, body: body === undefined ? null : JSON.stringify(body) });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(method + " " + path + ": " + res.statusCode + " " + text);
  return text ? JSON.parse(text) : {};
}
const provider = {
  async create(inputs) {
    const doc = await call("POST", "/cohorts", { name: inputs.name });
    return { id: String(doc.id), outs: { ...inputs, ...doc } };
  },
  async delete(id) {
    await call("DELETE", "/cohorts/" + id);
  },
};
`)};
${LOOP} new pulumi.CustomResource("pulumi-nodejs:dynamic:Resource", \`cohort-\${i}\`, { name: \`cohort \${i}\`, deletionMode: "delete", __provider: provider });
`,
  // What a dynamic Cohort registers (its type, inputs and provider shim), made without the class.
  plain: `import * as pulumi from "@pulumi/pulumi";
const shim = ${JSON.stringify(providerModule("cohorts"))};
${LOOP} new pulumi.CustomResource(${JSON.stringify(dynamicType("Cohort"))}, \`cohort-\${i}\`, { name: \`cohort \${i}\`, deletionMode: "delete", __provider: shim });
`,
  // What a native Cohort registers (its type, inputs, version and the alias from the dynamic type), without the class.
  plainNative: `import * as pulumi from "@pulumi/pulumi";
const alias = (name: string) => \`urn:pulumi:\${pulumi.getStack()}::\${pulumi.getProject()}::${dynamicType("Cohort")}::\${name}\`;
${LOOP} new pulumi.CustomResource(${JSON.stringify(resourceToken("Cohort"))}, \`cohort-\${i}\`, { name: \`cohort \${i}\`, deletionMode: "delete" }, { version: ${JSON.stringify(VERSION)}, aliases: [alias(\`cohort-\${i}\`)] });
`,
} as const;

/** The Pulumi.yaml of a bench program named `name`: its runtime as a scaffold's (`audience new`) gives it. */
export function projectFile(name: string): string {
  return `name: ${name}\nruntime:\n  name: nodejs\n  options:\n    typescript: false\n    nodeargs: --require=pulumi-audience/require-node\nmain: index.ts\n`;
}

/** Writes the project `bench-<dir>` in `.audience/bench/<dir>` with `program` as its index.ts; its directory. */
export function writeProgram(dir: string, program: string): string {
  const path = join(ROOT, ".audience", "bench", dir);
  mkdirSync(path, { recursive: true });
  writeFileSync(join(path, "Pulumi.yaml"), projectFile(`bench-${dir}`));
  writeFileSync(join(path, "index.ts"), program);
  return path;
}
