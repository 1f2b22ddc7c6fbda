// A program declares resources without loading the contract's schemas (zod) or the service's client (undici): both
// faces register from plain data (provider/runtime/generated/registrations.ts). A lookup loads them when called,
// and the lookup still answers (test/provider/examples.test.ts, test/engine/native.test.ts).
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";

// Inside the package, where `pulumi-audience` resolves to itself.
mkdirSync(join(process.cwd(), ".audience"), { recursive: true });
const dir = mkdtempSync(join(process.cwd(), ".audience", "face-load-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HEAVY = /[\\/]node_modules[\\/](zod|undici)[\\/]|[\\/]sdk[\\/](contract|client)[\\/]/;

/** Runs `code` as an ES module after `import(face)`; the modules loaded from the face's import on, as paths. */
function loadedBy(face: string, code = ""): string[] {
  const file = join(dir, `p${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(file, `
    import { registerHooks } from "node:module";
    import { fileURLToPath } from "node:url";
    await import("@pulumi/pulumi");
    const loaded = [];
    registerHooks({ resolve(specifier, context, next) { const found = next(specifier, context); if (found.url.startsWith("file:")) loaded.push(fileURLToPath(found.url)); return found; } });
    const face = await import(${JSON.stringify(face)});
    ${code}
    console.log(JSON.stringify(loaded));
  `);
  const run = spawnSync(process.execPath, ["--conditions=source", file], { cwd: process.cwd(), encoding: "utf8" });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout.trim().split("\n").at(-1)!) as string[];
}

it.each(["pulumi-audience", "pulumi-audience/native"])("importing %s loads neither the contract's schemas nor the client", (face) => {
  const loaded = loadedBy(face);
  expect(loaded.some((path) => path.endsWith("registrations.ts"))).toBe(true);
  // What keeps the runtime from capturing a stack per promise, sending its traces and coloring an error's stack, for
  // programs without the preload.
  expect(loaded.some((path) => path.endsWith("promise-stacks.cjs"))).toBe(true);
  expect(loaded.some((path) => path.endsWith("runtime-traces.cjs"))).toBe(true);
  expect(loaded.some((path) => path.endsWith("plain-errors.cjs"))).toBe(true);
  expect(loaded.filter((path) => HEAVY.test(path))).toEqual([]);
});

it("a lookup loads them when it is called", async () => {
  // No service answers: the lookup fails for want of credentials, after loading what it needs.
  const loaded = loadedBy("pulumi-audience", "await face.getCohort({ name: 'x' }).catch(() => undefined);");
  expect(loaded.some((path) => /[\\/]sdk[\\/]client[\\/]/.test(path))).toBe(true);
  expect(loaded.some((path) => /[\\/]node_modules[\\/]zod[\\/]/.test(path))).toBe(true);
});
