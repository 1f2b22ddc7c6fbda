// What a command loads at start-up: the engine's gRPC stubs (grpc-js, @pulumi/pulumi's protos, google-protobuf)
// load only when a monitor or a provider host starts. A refresh or a destroy runs no program, so a stack of this
// package's resources (served in the engine's process) needs neither, and its run never loads them.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ENGINE = join(import.meta.dirname, "..", "..", "provider", "engine", "index.ts");
const STUBS = /[\\/](@grpc[\\/]grpc-js|@pulumi[\\/]pulumi|google-protobuf)[\\/]/;

const dir = mkdtempSync(join(tmpdir(), "engine-start-up-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(join(dir, "Pulumi.yaml"), "name: start-up\nruntime: nodejs\nmain: index.ts\n");

/** Runs `script` (ESM, `engine` bound to the engine's module) in a fresh process; answers the gRPC stubs it loaded. */
function stubsLoadedBy(script: string): string[] {
  const source = `
    import { createRequire } from "node:module";
    const engine = await import(${JSON.stringify(ENGINE)});
    ${script}
    console.log(JSON.stringify(Object.keys(createRequire(import.meta.url).cache)));
  `;
  const run = spawnSync(process.execPath, ["--conditions=source", "--input-type=module", "-e", source], {
    cwd: dir, encoding: "utf8", env: { ...process.env, PULUMI_CONFIG_PASSPHRASE: "start-up", NODE_OPTIONS: "" },
  });
  expect(run.status, run.stderr).toBe(0);
  return (JSON.parse(run.stdout.trim().split("\n").at(-1)!) as string[]).filter((path) => STUBS.test(path));
}

describe("start-up", () => {
  it("importing the engine loads no gRPC stub", () => {
    expect(stubsLoadedBy("")).toEqual([]);
  });

  it.each(["destroy", "refresh"])("a %s, which runs no program, starts no monitor and loads no gRPC stub", (operation) => {
    const stubs = stubsLoadedBy(`
      const result = await engine.runProgram({ cwd: ${JSON.stringify(dir)}, operation: "${operation}", stack: "${operation}" });
      if (!result.ok) throw new Error(result.error);
    `);
    expect(stubs).toEqual([]);
  });

  it("a preview, which runs the program, does load them (the check above can see them)", () => {
    writeFileSync(join(dir, "index.ts"), "export {};\n");
    const stubs = stubsLoadedBy(`await engine.runProgram({ cwd: ${JSON.stringify(dir)}, operation: "preview", stack: "preview" });`);
    expect(stubs.some((path) => path.includes("grpc-js"))).toBe(true);
  });
});
