// Programs do not load TypeScript's compiler: importing the package (or @pulumi/pulumi under the package's preload)
// leaves it unloaded until a function is serialized, which still works.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";

// Inside the package, where `pulumi-audience` resolves to itself.
mkdirSync(join(process.cwd(), ".audience"), { recursive: true });
const dir = mkdtempSync(join(process.cwd(), ".audience", "lazy-typescript-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const LOADED = 'Object.keys(process.getBuiltinModule("node:module").createRequire(import.meta.url).cache).some((f) => /[\\\\/]typescript[\\\\/]lib[\\\\/]/.test(f))';

/** Runs an ES module program; what it prints. */
function program(code: string, nodeArgs: string[] = []): string {
  const file = join(dir, `p${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(file, code);
  const run = spawnSync(process.execPath, ["--conditions=source", ...nodeArgs, file], { cwd: process.cwd(), encoding: "utf8" });
  expect(run.stderr.replace(/\(node:\d+\) \S+Warning:.*\n|\(Use `node --trace.*\n/g, "")).toBe("");
  return run.stdout.trim();
}

it("importing the package leaves the compiler unloaded", () => {
  expect(program(`import "pulumi-audience";\nimport "pulumi-audience/native";\nconsole.log(${LOADED});`)).toBe("false");
});

it("without the package, @pulumi/pulumi alone loads it (what the package spares)", () => {
  expect(program(`import "@pulumi/pulumi";\nconsole.log(${LOADED});`)).toBe("true");
});

it("the preload keeps it unloaded for a program that imports @pulumi/pulumi first", () => {
  expect(program(`import "@pulumi/pulumi";\nimport "pulumi-audience";\nconsole.log(${LOADED});`, ["--require=pulumi-audience/require-node"])).toBe("false");
});

it("a function is still serialized, loading the compiler then", () => {
  const out = program(
    `import * as pulumi from "@pulumi/pulumi";\nconst before = ${LOADED};\nconst { text } = await pulumi.runtime.serializeFunction(() => 41 + 1);\nconsole.log(before, ${LOADED}, text.includes("41 + 1"));`,
    ["--require=pulumi-audience/require-node"],
  );
  expect(out).toBe("false true true");
});
